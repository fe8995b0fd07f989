"""`notch demo`: the overlay plus a short scripted agent, for a first look at Notch.

Runs on a throw-away socket and data dir (in a temporary folder, removed afterwards) so it
never clashes with a Notch already running nor adds demo decisions to your log; pass
--socket / --data-dir to choose them. Ends by itself a moment after the agent's last
decision (--exit-after-demo), or stays up as a normal Notch with --keep-running.

A card nobody answers for --answer-after seconds is answered by the demo itself, by a
click on it (ui/self_play.py), and it says so on the card and here: so `xvfb-run -a notch
demo`, where no one can see the cards, ends by itself. Any input on a card leaves that
card to the person.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--socket", type=Path, metavar="PATH", help="socket (default: temporary)")
    parser.add_argument(
        "--data-dir", type=Path, metavar="DIR", help="data dir (default: temporary, removed after)"
    )
    parser.add_argument(
        "--exit-after-demo",
        type=float,
        default=2.0,
        metavar="SECONDS",
        help="quit this long after the agent's last decision (default: 2)",
    )
    parser.add_argument(
        "--no-pauses",
        action="store_true",
        help="play the agent without the pauses that let a person follow each step "
        "(scripted runs, tests)",
    )
    parser.add_argument(
        "--answer-after",
        type=float,
        default=6.0,
        metavar="SECONDS",
        help="when nobody has touched a card for this long, the demo clicks it itself "
        "(its confirm; × when confirm is held by the card) and says so; 0 waits for you "
        "(default: 6)",
    )
    parser.add_argument(
        "--keep-running",
        action="store_true",
        help="keep Notch running after the demo (quit from the tray or with Ctrl+C)",
    )


def run(args: argparse.Namespace) -> int:
    from notch_app.app import BUNDLED_MANIFESTS, NotchApp, NotchConfig, run_notch
    from notch_app.client import NotchError
    from notch_app.demo_agent import DemoAgent

    if args.exit_after_demo < 0:
        print("notch demo: --exit-after-demo must be 0 or more seconds", file=sys.stderr)
        return 2
    if not args.answer_after >= 0:
        print(
            "notch demo: --answer-after must be 0 (wait for you) or more seconds", file=sys.stderr
        )
        return 2
    if not (BUNDLED_MANIFESTS / "mail" / "manifest.json").is_file():
        print(
            f"notch demo: the bundled integrations are missing ({BUNDLED_MANIFESTS}); "
            "run the demo from a source checkout or an editable install",
            file=sys.stderr,
        )
        return 2
    scratch = Path(tempfile.mkdtemp(prefix="notch-demo-"))
    config = NotchConfig(
        socket_path=(args.socket or scratch / "notch.sock").expanduser(),
        data_dir=(args.data_dir or scratch / "data").expanduser(),
    )
    failed = False

    async def scenario(notch: NotchApp) -> None:
        nonlocal failed
        agent = DemoAgent(
            config.socket_path, BUNDLED_MANIFESTS, sys.stdout, paced=not args.no_pauses
        )
        if args.answer_after > 0 and notch.presenter is not None:
            from notch_app.ui.self_play import SelfPlay

            wait = args.answer_after
            playing = SelfPlay(notch.presenter, agent.say, wait_s=wait, notice_s=min(1.5, wait))
            agent.answered_by_demo = lambda: len(playing.answered)
        try:
            await agent.play()
        except NotchError as exc:
            print(f"notch demo: the agent could not talk to Notch: {exc}", file=sys.stderr)
            failed = True
        if args.keep_running:
            print("notch demo: Notch keeps running; quit with Ctrl+C.", file=sys.stderr)
            await notch.stopped.wait()

    try:
        code = run_notch(config, scenario, linger_s=args.exit_after_demo)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return 1 if failed and code == 0 else code
