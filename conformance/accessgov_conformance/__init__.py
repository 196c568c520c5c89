"""accessgov-conformance: checks that an implementation of the Access Governance API honours its contract."""

__version__ = "0.1.0"
