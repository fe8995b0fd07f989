"""PySide's per-import check answered without keeping sources (ui/pyside_imports.py)."""

from __future__ import annotations

import inspect
import json
import linecache
import sys
import types

import notch_app.manifest.limits
import notch_app.ui.theme
from notch_app.ui.pyside_imports import mentions_pyside, read_sources_unkept


def _pyside_answer(module: types.ModuleType) -> bool:
    # PySide's own check: `inspect.getsource`, False for any failure to read.
    try:
        return "PySide6" in inspect.getsource(module)
    except Exception:
        return False


def test_the_answer_is_pysides_for_modules_with_and_without_source() -> None:
    for module in (notch_app.ui.theme, notch_app.manifest.limits, json, sys, types):
        assert mentions_pyside(module) == _pyside_answer(module), module.__name__
    assert mentions_pyside(notch_app.ui.theme) is True
    assert mentions_pyside(sys) is False
    assert mentions_pyside(types.ModuleType("made_here")) is False


def test_the_check_reads_without_filling_linecache() -> None:
    assert read_sources_unkept() is True
    feature = sys.modules["shibokensupport.feature"]
    assert feature._mod_uses_pyside is mentions_pyside
    linecache.clearcache()
    assert feature._mod_uses_pyside(notch_app.ui.theme) is True
    assert notch_app.ui.theme.__file__ not in linecache.cache
