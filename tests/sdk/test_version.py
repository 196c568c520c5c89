"""The SDK's version follows the contract's info.version (in PEP 440 spelling) and its dependencies are ranges
that hold the versions these tests run with."""

from __future__ import annotations

import json
import tomllib
from importlib import metadata

import accessgov_client
import pytest
from packaging.version import Version

from accessgov_tools.generate import client_config
from accessgov_tools.release.sdk_deps import lower_bounds, requirements
from accessgov_tools.release.versions import pep440
from tests.sdk.conftest import CLIENT_DIR, REPO

pytestmark = pytest.mark.slow


def test_the_sdk_version_is_the_contracts_in_pep440_spelling() -> None:
    contract = json.loads((REPO / "generated" / "openapi.json").read_text(encoding="utf-8"))["info"]["version"]
    project = tomllib.loads((CLIENT_DIR / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert accessgov_client.__version__ == project["version"] == pep440(contract)
    assert str(Version(accessgov_client.__version__)) == accessgov_client.__version__


def test_the_generator_is_given_the_pep440_version() -> None:
    for contract, sdk in (("1.0.0-rc.2", "1.0.0rc2"), ("0.1.0-alpha", "0.1.0a0"), ("2.3.4", "2.3.4")):
        assert client_config({"info": {"version": contract}})["package_version_override"] == sdk


def test_dependencies_are_ranges_that_hold_the_versions_tested_here() -> None:
    for requirement in requirements():
        operators = sorted(spec.operator for spec in requirement.specifier)
        assert operators == ["<", ">="], f"{requirement}: expected >=tested,<next major"
        # This session runs tests/sdk at the project venv's versions; make sdk-deps-check runs the lower bounds.
        assert requirement.specifier.contains(metadata.version(requirement.name)), requirement
    assert len(lower_bounds()) == len(requirements())
    authlib = next(r for r in requirements() if r.name.lower() == "authlib")
    assert not authlib.specifier.contains("1.8.0"), "authlib 1.8 moves its httpx integration to httpx2"
