"""Notch: asks the person before an AI agent acts for them."""

__version__ = "0.1.0"
