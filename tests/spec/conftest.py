"""The bundle of spec/, built once per test process for the spec suite (bundling costs ~0.7 s of CPU)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from accessgov_tools.bundle import REPO, bundle

SPEC_ROOT = REPO / "spec" / "openapi.yaml"


@pytest.fixture(scope="session")
def spec_bundle() -> dict[str, Any]:
    """The bundled spec as built by `accessgov_tools.bundle`; read it only, or take `copy.deepcopy` of it to change
    it."""
    return bundle(SPEC_ROOT)


@pytest.fixture(scope="module")
def doc(spec_bundle: dict[str, Any]) -> dict[str, Any]:
    """The bundled spec, a copy for each module (as when each module bundled it itself)."""
    return copy.deepcopy(spec_bundle)
