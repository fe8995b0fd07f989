"""How Notch fits the person's desktop: which session it runs in (session.py), how the
notch's windows reach the top centre there (placement.py), opening and losing the display
(display.py), what Qt finds on it for `notch doctor` (probe.py), and a few Wayland
requests spoken on the wire (wayland_wire.py)."""
