"""The reference server: handlers for the contract's operations, plugged into the spec-driven app."""
