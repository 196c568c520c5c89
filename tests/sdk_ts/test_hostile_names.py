"""generate_ts refuses a contract whose names would read JavaScript's own objects at run time: an operationId,
a schema name or an `x-paginated` member that is `__proto__`, `prototype` or a member of `Object.prototype`
(`constructor`, `toString`, `hasOwnProperty`), or an operation whose method would make the client a thenable
(`then`) or change how it serialises (`toJSON`). Exit 2 with the name, nothing written. A name that is only
unusual (`__defineGetter__`-free, a TypeScript keyword) still generates."""

from __future__ import annotations

import copy
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.sdk_ts.harness import REPO, SDK

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("sdk-ts-names")]

VARIANT = json.loads((REPO / "generated" / "variants" / "sdk.json").read_text(encoding="utf-8"))


def _rename_operation(new: str) -> Callable[[dict[str, Any]], None]:
    def change(doc: dict[str, Any]) -> None:
        doc["paths"]["/api/v1/tasks/{task_id}/action/restart"]["post"]["operationId"] = new

    return change


def _rename_schema(new: str) -> Callable[[dict[str, Any]], None]:
    def change(doc: dict[str, Any]) -> None:
        doc["components"]["schemas"][new] = {"type": "object", "properties": {"x": {"type": "string"}}}

    return change


def _paging_items(new: str) -> Callable[[dict[str, Any]], None]:
    def change(doc: dict[str, Any]) -> None:
        operation = doc["paths"]["/api/v1/apps/{app_id}/entitlements"]["get"]
        operation["x-paginated"]["items"] = new
        schema = operation["responses"]["200"]["content"]["application/json"]["schema"]
        target = doc["components"]["schemas"][schema["$ref"].rsplit("/", 1)[-1]] if "$ref" in schema else schema
        target["properties"][new] = {"type": "array", "items": {"type": "object"}}

    return change


REFUSED: dict[str, tuple[Callable[[dict[str, Any]], None], str]] = {
    "operationId __proto__": (_rename_operation("__proto__"), 'operationId "__proto__"'),
    "operationId constructor": (_rename_operation("constructor"), 'operationId "constructor"'),
    "operationId toString": (_rename_operation("toString"), 'operationId "toString"'),
    "operationId hasOwnProperty": (_rename_operation("hasOwnProperty"), 'operationId "hasOwnProperty"'),
    "operationId prototype": (_rename_operation("prototype"), 'operationId "prototype"'),
    "operation method then()": (_rename_operation("then"), "would replace the client's own"),
    "operation method toJSON()": (_rename_operation("toJSON"), "would replace the client's own"),
    "schema __proto__": (_rename_schema("__proto__"), 'schema "__proto__"'),
    "schema constructor": (_rename_schema("constructor"), 'schema "constructor"'),
    "schema toString": (_rename_schema("toString"), 'schema "toString"'),
    "x-paginated items __proto__": (_paging_items("__proto__"), 'x-paginated.items "__proto__"'),
}


def _package(tmp_path: Path) -> Path:
    """A package directory with the SDK's generator and pinned toolchain, so nothing is written into sdk-ts/."""
    package = tmp_path / "sdk-ts"
    (package / "src").mkdir(parents=True)
    for name in ("package.json", "package-lock.json"):
        shutil.copyfile(SDK / name, package / name)
    shutil.copytree(SDK / "scripts", package / "scripts")
    os.symlink(SDK / "node_modules", package / "node_modules", target_is_directory=True)
    return package


def _generate(tmp_path: Path, doc: dict[str, Any]) -> tuple[subprocess.CompletedProcess[str], Path]:
    out = tmp_path / "generated"
    (out / "variants").mkdir(parents=True)
    text = json.dumps(doc)
    (out / "variants" / "sdk.json").write_text(text, encoding="utf-8")
    (out / "openapi.json").write_text(text, encoding="utf-8")
    package = _package(tmp_path)
    command = [sys.executable, "-m", "accessgov_tools.generate_ts", "--out", str(out), "--sdk", str(package)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False, cwd=REPO)
    return done, package


@pytest.mark.parametrize("case", REFUSED)
def test_a_name_that_reads_javascripts_own_objects_is_refused_with_exit_2(case: str, tmp_path: Path) -> None:
    change, named = REFUSED[case]
    doc = copy.deepcopy(VARIANT)
    change(doc)
    done, package = _generate(tmp_path, doc)
    assert done.returncode == 2, done.stdout + done.stderr
    assert named in done.stderr, done.stderr
    assert "Traceback" not in done.stderr and "    at " not in done.stderr  # a message, not a stack
    assert not (package / "src" / "generated").exists()


def test_the_contract_as_it_is_still_generates(tmp_path: Path) -> None:
    done, package = _generate(tmp_path, copy.deepcopy(VARIANT))
    assert done.returncode == 0, done.stderr
    for name in ("schema.ts", "types.ts", "operations.ts"):
        assert (package / "src" / "generated" / name).read_text(encoding="utf-8") == (
            SDK / "src" / "generated" / name
        ).read_text(encoding="utf-8")


INJECTED = '*/ export const pwned = 1; /* </script> ${x} `x` \u2028 \\ "; throw 1; //\nexport const two = 2;'


def test_document_text_stays_data_in_the_generated_code_which_compiles(tmp_path: Path) -> None:
    from accessgov_tools import generate_ts

    doc = copy.deepcopy(VARIANT)
    doc["info"]["version"] = INJECTED
    doc["components"]["schemas"]["Evil"] = {
        "type": "object",
        "description": INJECTED,
        "title": INJECTED,
        "required": [INJECTED],
        "properties": {
            INJECTED: {"type": "string", "description": INJECTED, "enum": [INJECTED, 'a"b'], "default": INJECTED},
            "open": {"anyOf": [{"enum": [INJECTED]}, {"type": "string"}], "x-open-enum": True},
        },
    }
    operation = doc["paths"]["/api/v1/tasks/{task_id}/action/restart"]["post"]
    operation["summary"] = operation["description"] = INJECTED
    done, package = _generate(tmp_path, doc)
    assert done.returncode == 0, done.stderr
    generated = package / "src" / "generated"
    for path in generated.glob("*.ts"):
        for line in path.read_text(encoding="utf-8").splitlines():
            assert not line.lstrip().startswith(("export const pwned", "export const two")), (path.name, line)
    assert generate_ts.compile_check(generated, SDK) == []  # the SDK's own sources over this generated part
