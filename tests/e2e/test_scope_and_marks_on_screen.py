"""What the person chooses on a real card reaches as far as they meant (issue 20), in a
real X server with a real pointer (xdotool: XTEST, the path a person's mouse takes).

- "Allow `npm test` … for this session" clicked on Claude Code's Bash card: the next
  `npm test` of that session runs with no card, a different command asks, and once
  Claude Code's SessionEnd hook says the session ended the same `npm test` asks again.
- "Changed since you last approved this": after a send to sam@example.com was approved,
  a send to sam@exarnple.com opens with the amber marks panel on screen, which the first
  card did not have, and the marks reach the asking agent in `confirmationRequired`.

The links and the panel are found on the screenshot by their colours (the theme's
`link` and `badge_warning` over the card's glass), never at a fixed spot: the layout
moves with fonts and the text on the card.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QRect
from PySide6.QtGui import QImage

pytestmark = pytest.mark.e2e

FIXTURES = Path(__file__).parent.parent / "fixtures" / "hooks" / "claude-code"
MAIL = "dev.notch.examples.mail"


def spots(
    image: QImage, area: QRect, rgb: tuple[int, int, int], near: int
) -> list[tuple[int, int]]:
    """Every pixel in `area` of `image` within `near` of `rgb` on each channel."""
    area = area.intersected(image.rect())
    found = []
    for y in range(area.top(), area.bottom() + 1):
        for x in range(area.left(), area.right() + 1):
            c = image.pixel(x, y)  # 0xAARRGGBB: one int, not a QColor per pixel
            red, green, blue = (c >> 16) & 0xFF, (c >> 8) & 0xFF, c & 0xFF
            if max(abs(red - rgb[0]), abs(green - rgb[1]), abs(blue - rgb[2])) <= near:
                found.append((x, y))
    return found


def hook(
    notch_argv: list[str], env: dict[str, str], socket: Path, tmp_path: Path, name: str,
    payload: dict[str, Any],
) -> subprocess.Popen[str]:  # fmt: skip
    """`notch hook claude-code` as Claude Code runs it, with `payload` on its stdin."""
    stdin = tmp_path / f"{name}.json"
    stdin.write_text(json.dumps(payload))
    return subprocess.Popen(
        [*notch_argv, "hook", "claude-code", "--socket", str(socket), "--timeout", "60"],
        env={**env, "NOTCH_DATA_DIR": str(tmp_path / "hook-data")}, stdin=stdin.open("rb"),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip


def bash(command: str, tool_use_id: str, session: str = "s-one") -> dict[str, Any]:
    payload: dict[str, Any] = json.loads((FIXTURES / "bash.json").read_text())
    payload["tool_input"]["command"] = command
    payload.update(session_id=session, tool_use_id=tool_use_id, cwd="/home/user/shop")
    return payload


def answer_of(process: subprocess.Popen[str]) -> tuple[dict[str, Any], str]:
    out, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    return (json.loads(out)["hookSpecificOutput"] if out.strip() else {}), err


def test_a_send_to_a_look_alike_domain_opens_with_the_changes_marked(
    xserver: Any, shared_notch: Any, over_glass: Callable[[str], tuple[int, int, int]]
) -> None:
    from notch_app.ipc.blocking import NotchClient

    # The module's one `notch run`, started here: the first send is the first approval
    # this notch's memory has for the action (no marks), as on a fresh one. The test
    # below, sharing it, approves no mail.
    socket = shared_notch("--theme", "dark").socket
    amber = over_glass("badge_warning")
    email = {"to": ["sam@example.com"], "subject": "Invoice 118", "body": "Attached, thanks."}
    events: list[tuple[str, dict[str, Any]]] = []

    def marked(card: dict[str, int]) -> int:
        area = QRect(card["X"], card["Y"], card["WIDTH"], card["HEIGHT"])
        return len(spots(xserver.screen(), area, amber, 6))

    with NotchClient(socket, on_event=lambda e: events.append((e.event, e.data))) as client:
        import threading

        got: list[Any] = []
        first = threading.Thread(target=lambda: got.append(
            client.confirm(MAIL, "send_email", email, timeout=60)))  # fmt: skip
        first.start()
        card = xserver.settled_card()
        plain = marked(card)
        xserver.focus_card(card)
        xserver.confirm_with_keys(card)
        first.join(60)
        assert got and got[0].outcome == "approved"

        second_args = dict(email, to=["sam@exarnple.com"])
        second = threading.Thread(target=lambda: got.append(
            client.confirm(MAIL, "send_email", second_args, timeout=60)))  # fmt: skip
        second.start()
        card = xserver.settled_card()
        xserver.screenshot("changes-marked-card")
        assert plain < 200 <= marked(card), "the amber panel shows on the second card only"
        xserver.click_close(card)
        second.join(60)
        assert len(got) == 2 and got[1].outcome == "declined"
    changes = [d.get("changes") for e, d in events if e == "confirmationRequired"]
    assert changes[0] == []
    marked_changes = changes[1]
    assert marked_changes is not None
    texts = " ".join(c["text"] for c in marked_changes)
    assert "exarnple.com looks like example.com" in texts


def test_a_session_scope_clicked_on_the_card_covers_that_session_until_it_ends(
    xserver: Any, shared_notch: Any, notch_argv: list[str], tmp_path: Path, wait_for: Any,
    over_glass: Callable[[str], tuple[int, int, int]],
) -> None:  # fmt: skip
    # The module's one `notch run`, after the test above (which allows nothing for a
    # session). Last: its notes of the calls the allowance let through stay up for seconds
    # after its last card, and the next test would wait them out or get a fresh notch.
    socket = shared_notch("--theme", "dark").socket
    run = hook(notch_argv, xserver.env, socket, tmp_path, "first", bash("npm test", "toolu_1"))
    card = xserver.settled_card()
    wait_for(lambda: xserver.confirm_armed(card), 20, "the card's confirm to show armed")
    # "Allow `npm test` in /home/user/shop for this session": the link-coloured words
    # under confirm, right of the card's middle ("Details" is the link on the left).
    centre = xserver.confirm_center(card)
    assert centre is not None, "the card shows its confirm"
    below = QRect(card["X"] + card["WIDTH"] // 2, centre[1] + 16, card["WIDTH"] // 2,
                  card["Y"] + card["HEIGHT"] - centre[1] - 16)  # fmt: skip
    link = spots(xserver.screen(), below, over_glass("link"), 40)
    xserver.screenshot("scope-session-card")
    assert len(link) >= 20, "the card offers Allow … for this session under its confirm"
    xs, ys = sorted(x for x, _ in link), sorted(y for _, y in link)
    xserver.xdotool("mousemove", str(xs[len(xs) // 2]), str(ys[len(ys) // 2]), "click", "1")
    answer, _ = answer_of(run)
    assert answer["permissionDecision"] == "allow"
    xserver.card_gone(card)

    # The identical call again, then the same prefix, in the same session: each allowed
    # with no card (nobody clicks here; a card would keep the hook waiting to its timeout).
    same, _ = answer_of(
        hook(notch_argv, xserver.env, socket, tmp_path, "same", bash("npm test", "toolu_1b"))
    )
    assert same["permissionDecision"] == "allow" and same["updatedInput"]["command"] == "npm test"
    again, _ = answer_of(
        hook(
            notch_argv, xserver.env, socket, tmp_path, "again", bash("npm test -- --ci", "toolu_2")
        )
    )
    assert again["permissionDecision"] == "allow"
    assert again["updatedInput"]["command"] == "npm test -- --ci"

    # A different command asks: its card comes, and the person declines it.
    other = hook(notch_argv, xserver.env, socket, tmp_path, "other", bash("npm publish", "toolu_3"))
    card = xserver.settled_card()
    xserver.click_close(card)
    assert answer_of(other)[0]["permissionDecision"] == "deny"
    xserver.card_gone(card)

    # Claude Code's session ends (its SessionEnd hook): the same npm test asks again.
    end: dict[str, Any] = json.loads((FIXTURES / "session-end.json").read_text())
    end["session_id"] = "s-one"
    said, err = answer_of(hook(notch_argv, xserver.env, socket, tmp_path, "end", end))
    assert said == {} and "1 “for this session” allowance(s) ended" in err
    last = hook(notch_argv, xserver.env, socket, tmp_path, "last", bash("npm test", "toolu_4"))
    card = xserver.settled_card()
    xserver.click_close(card)
    assert answer_of(last)[0]["permissionDecision"] == "deny"
