"""The bundle's operations and validators (`bundle`, `fastcheck`), read one way by the engine, the proxy and the mock.
Stand-alone (the stdlib, jsonschema, referencing; relative imports): `accessgov_tools/generate_stub.py` vendors it into
`generated/stub_server/contract/`."""
