"""Coding-agent hooks: `notch hook claude-code` and `notch hook codex`.

A coding agent runs its hook command with the pending tool call as JSON on stdin and
reads the decision from stdout. This package reads that payload (`payload`), turns it
into a Notch request with a card made for the tool (`calls`, with `file_change` for the
diffs), asks the running Notch as a client of its socket (`asking`) and writes the
agent's own answer format (`answers`). Qt-free; beside `gateway`, a client of the socket.

Never a silent allow: whenever Notch cannot answer (not running, a refused request, a
payload it cannot read, a call too large to show whole) the answer lets the agent's own
prompt take over.
"""
