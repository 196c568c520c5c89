"""HTTP: the spec-driven engine (routes, parameter and body checks), body reading, bearer parsing, error mapping."""
