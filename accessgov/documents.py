"""The contract documents the server reads, found in one place: the bundle (`openapi.json`, from which the engine
and the proxy derive their routes and checks) and the public variant (`variants/public.json`, served at
`/openapi.json` and `/docs`).

They are `make generate`'s files in `generated/`, never copied by hand: pyproject.toml maps the data-only package
`accessgov.bundle.documents` onto that directory, so the wheel carries the two files inside `accessgov` and an
editable install reads the checkout's `generated/` as it is now (no reinstall after `make generate`).
"""

from __future__ import annotations

from importlib.resources import files
from importlib.resources.abc import Traversable

PACKAGE = "accessgov.bundle.documents"
BUNDLE = "openapi.json"
PUBLIC_VARIANT = "variants/public.json"


def document(name: str) -> Traversable:
    """The document `name` (`BUNDLE` or `PUBLIC_VARIANT`): in the installed package, or in the checkout's
    `generated/` for an editable install."""
    return files(PACKAGE).joinpath(name)
