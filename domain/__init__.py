"""Yamen's pure game rules.

Nothing in this package performs I/O, reads a clock, logs or draws global randomness:
time, identities and seeds arrive as arguments, and every random outcome is recorded in an
event.  Only the standard library and msgspec may be imported here (``tests/domain/test_purity.py``
enforces it).
"""
