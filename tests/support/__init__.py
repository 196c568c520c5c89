"""Test helpers shared by every suite, each kept once: keys, a JWKS served on loopback, hand-made tokens, clocks."""
