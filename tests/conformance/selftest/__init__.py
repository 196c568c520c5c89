"""The conformance kit's mutation self-test: deliberately broken variants of the reference server.

`mutants/` holds the catalogue (each mutant an ASGI middleware in front of the one reference app), `target.py`
serves every mutant and control on its own port of one server, `run.py` runs the kit against each and scores it.
Its own tests are `test_selftest.py` (the scoring, and one whole run) and `probes/` (each mutant really breaks
its rule).
The mutants live here, not in `conformance/`: they wrap the reference server (`accessgov`), which the kit must
never import, and an implementer installing the kit has no use for them.
"""
