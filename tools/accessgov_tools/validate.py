"""Validate bundled documents against the OpenAPI meta-schema with openapi-spec-validator.

Each document is read by the one loader and its references checked by the one resolver (`accessgov_tools/refs.py`:
inside the document's directory, no network unless allowed, no cycles) before the validator sees it; the validator's
`referencing` registry retrieves through the same resolver, so it fetches nothing on its own.

Exit status: 0 every document valid, 1 one is not (a finding), 2 one could not be judged (unreadable, over a limit,
a reference the rules refuse).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from openapi_spec_validator.validation.exceptions import OpenAPIValidationError

from accessgov_tools.loader import LoadError
from accessgov_tools.paths import REPO, shown
from accessgov_tools.refs import References, RefError


def validate_document(path: Path) -> None:
    """Raise `OpenAPIValidationError` when the document at `path` is not valid OpenAPI, `LoadError` when it cannot
    be judged."""
    from jsonschema_path import SchemaPath
    from jsonschema_path.accessors import SchemaAccessor
    from openapi_spec_validator.settings import OpenAPISpecValidatorSettings
    from openapi_spec_validator.shortcuts import get_validator_cls
    from openapi_spec_validator.validation.exceptions import ValidatorDetectError
    from referencing import Registry
    from referencing.exceptions import Unresolvable
    from referencing.jsonschema import DRAFT202012

    references = References(path.resolve().parent)
    spec: Any = references.document(path)
    references.check_chains(path)
    base_uri = path.resolve().as_uri()
    registry: Registry[Any] = Registry(retrieve=references.retrieve)  # type: ignore[call-arg]
    registry = registry.with_resource(base_uri, DRAFT202012.create_resource(spec))
    accessor = SchemaAccessor(
        spec,
        registry.resolver(base_uri=base_uri),
        resolved_cache_maxsize=OpenAPISpecValidatorSettings().resolved_cache_maxsize,
    )
    try:
        validator = get_validator_cls(spec)
    except ValidatorDetectError:
        raise OpenAPIValidationError("not an OpenAPI document: no `openapi` (or `swagger`) version field") from None
    try:
        validator(SchemaPath(accessor)).validate()
    except Unresolvable as error:
        cause = error.__cause__ or error.__context__
        if isinstance(cause, LoadError):  # the resolver refused what a reference names
            raise cause from None
        raise OpenAPIValidationError(f"unresolvable $ref: {error}") from None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="accessgov-tools validate", description=__doc__)
    parser.add_argument("paths", nargs="*", type=Path, help="OpenAPI documents (default: generated/openapi.yaml)")
    paths = parser.parse_args(argv).paths or [REPO / "generated/openapi.yaml"]
    failed = unjudged = 0
    for path in paths:
        try:
            validate_document(path)
        except OpenAPIValidationError as error:
            failed += 1
            print(f"{path}: INVALID: {error.message} at {'/'.join(map(str, getattr(error, 'path', ())))}")
        except (LoadError, RefError) as error:
            unjudged += 1
            print(f"error: {error}", file=sys.stderr)
        except RecursionError:
            unjudged += 1
            print(f"error: {shown(path)}: nested too deeply to validate (RecursionError)", file=sys.stderr)
        else:
            print(f"{path}: valid OpenAPI 3.1")
    return 2 if unjudged else 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
