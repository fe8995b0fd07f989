"""`python -m notch_app` is the `notch` command."""

from notch_app.cli import main

raise SystemExit(main())
