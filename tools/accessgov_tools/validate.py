"""Validate bundled documents against the OpenAPI 3.1 meta-schema with openapi-spec-validator."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import yaml
from openapi_spec_validator import validate
from openapi_spec_validator.validation.exceptions import OpenAPIValidationError

from accessgov_tools.paths import REPO


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="accessgov-tools validate", description=__doc__)
    parser.add_argument("paths", nargs="*", type=Path, help="OpenAPI documents (default: generated/openapi.yaml)")
    paths = parser.parse_args(argv).paths or [REPO / "generated/openapi.yaml"]
    failed = 0
    for path in paths:
        try:
            document = yaml.safe_load(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, yaml.YAMLError) as error:
            print(f"{path}: cannot be read: {error}", file=sys.stderr)
            return 2
        try:
            validate(document)
        except OpenAPIValidationError as error:
            failed += 1
            print(f"{path}: INVALID: {error.message} at {'/'.join(map(str, error.path))}")
        else:
            print(f"{path}: valid OpenAPI 3.1")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
