"""Runs a confirmation scenario through a real CardView: every `set` types, picks, flips
or adds chips in the real widgets, every `press` goes through the card's own gate."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QApplication

from notch_app.card.paths import MISSING
from notch_app.card.scenario import ExpectStep, PressStep, Scenario, SetStep
from notch_app.manifest.integration import Integration, load_integration
from notch_app.ui.card_driver import CardDriver
from notch_app.ui.card_view import CardView

_SHOWN = 80


@dataclass(frozen=True, slots=True)
class ScenarioResult:
    name: str
    passed: bool
    reason: str = ""


class ScenarioFailure(Exception):
    """One check of a scenario did not hold; the message says which and why."""


def _short(value: Any) -> str:
    text = "absent" if value is MISSING else repr(value)
    return text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "…"


def same_json(a: Any, b: Any) -> bool:
    """Exact JSON equality: `true` is not `1`, `1` equals `1.0`, key order is ignored."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_json(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_json(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    return type(a) is type(b) and a == b


def first_difference(expected: Any, actual: Any, path: str = "") -> str | None:
    """Where two JSON values first differ, in words; None when they are the same."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        for key in sorted(set(expected) | set(actual)):
            sub = f"{path}.{key}" if path else key
            if key not in actual:
                return f"{sub} is absent (expected {_short(expected[key])})"
            if key not in expected:
                return f"{sub} is {_short(actual[key])} (expected it absent)"
            found = first_difference(expected[key], actual[key], sub)
            if found:
                return found
        return None
    if same_json(expected, actual):
        return None
    return f"{path or 'the arguments'} is {_short(actual)} (expected {_short(expected)})"


class ScenarioRunner:
    """Runs scenarios; integrations are loaded once per manifest path."""

    def __init__(self, theme: str = "dark") -> None:
        self._integrations: dict[Path, tuple[Integration | None, str]] = {}
        self._theme = theme

    def _integration(self, path: Path) -> Integration:
        key = path.resolve()
        if key not in self._integrations:
            if not key.exists():
                self._integrations[key] = (None, f"manifest {path} does not exist")
            else:
                integration, problems = load_integration(key)
                errors = [p for p in problems if p.is_error]
                why = errors[0].format() if errors else ""
                self._integrations[key] = (integration, f"the manifest has errors: {why}")
        integration, why = self._integrations[key]
        if integration is None:
            raise ScenarioFailure(why)
        return integration

    def run(self, scenario: Scenario, scenario_file: Path, name: str) -> ScenarioResult:
        try:
            self._run(scenario, scenario_file)
        except ScenarioFailure as exc:
            return ScenarioResult(name, False, str(exc))
        return ScenarioResult(name, True)

    def _run(self, scenario: Scenario, scenario_file: Path) -> None:
        integration = self._integration(scenario_file.parent / scenario.manifest)
        tool = integration.manifest.tool(scenario.tool)
        if tool is None or tool.confirmation is None:
            raise ScenarioFailure(
                f"{scenario.tool!r} is not a tool with a confirmation card in "
                f"{integration.manifest_path}"
            )
        view = CardView(
            tool,
            scenario.arguments,
            base_dir=integration.folder,
            network_domains=integration.manifest.network_domains,
            theme=self._theme,
        )
        decisions: list[tuple[bool, dict[str, Any], list[str]]] = []
        view.decided.connect(lambda ok, final, edited: decisions.append((ok, final, edited)))
        # The whole card, never folded at this machine's screen height: a scenario checks
        # what the card does, the same on every screen (the fold's hold is the card's own).
        view.unfold()
        view.show()
        driver = CardDriver(view)
        try:
            for number, step in enumerate(scenario.steps, start=1):
                where = f"step {number}"
                if isinstance(step, ExpectStep):
                    _check(driver, step, where)
                elif isinstance(step, SetStep):
                    for path, value in step.set.items():
                        try:
                            driver.set(path, value)
                        except KeyError:
                            raise ScenarioFailure(
                                f"{where}: no input on the card is bound to {path!r}"
                            ) from None
                        except ValueError as exc:
                            raise ScenarioFailure(f"{where}: {exc}") from None
                        QApplication.processEvents()
                elif isinstance(step, PressStep):
                    if decisions:
                        raise ScenarioFailure(f"{where}: the card was already decided")
                    if step.press == "confirm" and not view.state().confirm_enabled:
                        why = "; ".join(view.state().blockers())
                        raise ScenarioFailure(f"{where}: confirm is disabled ({why})")
                    view.press(step.press)
            if not decisions:
                raise ScenarioFailure("the card was never decided: end with a press step")
            approved, final, _edited = decisions[0]
            outcome = "approved" if approved else "declined"
            if outcome != scenario.outcome:
                raise ScenarioFailure(f"outcome is {outcome}, expected {scenario.outcome}")
            if approved and scenario.final_arguments is not None:
                diff = first_difference(scenario.final_arguments, final)
                if diff:
                    raise ScenarioFailure(f"finalArguments differ: {diff}")
        finally:
            view.close()
            view.deleteLater()


def _check(driver: CardDriver, step: ExpectStep, where: str) -> None:
    view = driver.view
    expect = step.expect
    state = view.state()
    if expect.confirm_enabled is not None:
        button = view.confirm_button()
        shown_enabled = button.isEnabled() if button is not None else state.confirm_enabled
        if (
            shown_enabled != expect.confirm_enabled
            or state.confirm_enabled != expect.confirm_enabled
        ):
            why = "; ".join(state.blockers())
            raise ScenarioFailure(
                f"{where}: confirm is {'enabled' if shown_enabled else 'disabled'}"
                + (f" ({why})" if why else "")
                + f", expected {'enabled' if expect.confirm_enabled else 'disabled'}"
            )
    for path in expect.visible:
        if not _visible(view, path, where):
            raise ScenarioFailure(f"{where}: the input for {path!r} is hidden, expected visible")
    for path in expect.hidden:
        if _visible(view, path, where):
            raise ScenarioFailure(f"{where}: the input for {path!r} is visible, expected hidden")
    for path, expected in expect.values.items():
        actual = state.value(path)
        if actual is MISSING or not same_json(expected, actual):
            raise ScenarioFailure(
                f"{where}: {path} is {_short(actual)}, expected {_short(expected)}"
            )
    if expect.text:
        shown = driver.visible_text()
        for text in expect.text:
            if text not in shown:
                raise ScenarioFailure(f"{where}: the card does not show {_short(text)}")


def _visible(view: CardView, path: str, where: str) -> bool:
    try:
        return view.is_input_visible(path)
    except KeyError:
        raise ScenarioFailure(f"{where}: no input on the card is bound to {path!r}") from None
