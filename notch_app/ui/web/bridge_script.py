"""The script Notch runs in a widget page's isolated world (never in the page's own world):
it listens for the page's `postMessage`, drops all but `voiceos:resize` and `voiceos:args`,
bounds a message's size by walking it BEFORE anything is serialised (a 50 MB string is
measured, never copied), and forwards what is left to Notch over the web channel.

DOM events are shared between worlds, so this world hears the page's messages; the page
cannot see this world's variables, `qt` or the channel. Repeated messages are coalesced
(latest wins, one flush per ~frame), so a page posting in a loop cannot flood Notch.
"""

from __future__ import annotations

from notch_app.ui.web.protocol import MAX_DEPTH, MAX_MESSAGE_BYTES

_TEMPLATE = r"""
(function () {
  "use strict";
  var LIMIT = __LIMIT__, DEPTH = __DEPTH__, ACCEPTS_ARGUMENTS = __ACCEPTS__;
  var notch = null, resize = null, args = null, flushing = false;

  // Remaining budget after counting `value`, or -1: over budget, too deep, or not JSON.
  function measure(value, budget) {
    var stack = [[value, 1]];
    while (stack.length) {
      var top = stack.pop(), item = top[0], depth = top[1];
      if (depth > DEPTH) return -1;
      if (item === null || typeof item === "boolean") { budget -= 5; }
      else if (typeof item === "number") { if (!isFinite(item)) return -1; budget -= 24; }
      else if (typeof item === "string") { budget -= item.length + 2; }
      else if (Array.isArray(item)) {
        budget -= item.length + 2;
        if (budget < 0) return -1;
        for (var i = 0; i < item.length; i++) stack.push([item[i], depth + 1]);
      } else if (typeof item === "object" &&
                 Object.prototype.toString.call(item) === "[object Object]") {
        var keys = Object.keys(item);
        budget -= keys.length + 2;
        if (budget < 0) return -1;
        for (var k = 0; k < keys.length; k++) {
          budget -= keys[k].length + 3;
          stack.push([item[keys[k]], depth + 1]);
        }
      } else { return -1; }
      if (budget < 0) return -1;
    }
    return budget;
  }

  function flush() {
    flushing = false;
    if (notch === null) return;
    if (resize !== null) { notch.post(JSON.stringify({type: "voiceos:resize", height: resize})); }
    if (args !== null) { notch.post(args); }
    resize = null; args = null;
  }

  function later() {
    if (!flushing) { flushing = true; setTimeout(flush, 16); }
  }

  window.addEventListener("message", function (event) {
    var data = event.data;
    if (data === null || typeof data !== "object") return;
    var kind = data.type;
    if (kind === "voiceos:resize") {
      var height = data.height;
      if (typeof height !== "number" || !isFinite(height)) return;
      resize = height;
      later();
    } else if (kind === "voiceos:args" && ACCEPTS_ARGUMENTS) {
      var staged = data.arguments;
      if (staged === null || typeof staged !== "object" || Array.isArray(staged)) return;
      if (measure(staged, LIMIT - 64) < 0) return;  // dropped whole, never serialised
      args = JSON.stringify({type: "voiceos:args", arguments: staged});
      later();
    }
  }, true);

  new QWebChannel(qt.webChannelTransport, function (channel) {
    notch = channel.objects.notch;
    flush();
  });
})();
"""


def bridge_script(*, accepts_arguments: bool) -> str:
    """The isolated-world bridge for one page; `voiceos:args` is forwarded only when the
    widget `accepts_arguments` (a confirmation view's root, never a glance)."""
    return (
        _TEMPLATE.replace("__LIMIT__", str(MAX_MESSAGE_BYTES))
        .replace("__DEPTH__", str(MAX_DEPTH))
        .replace("__ACCEPTS__", "true" if accepts_arguments else "false")
    )
