"""Generated code never runs document text: the models, the SDK and the stub server generated from a hostile contract
import and run without executing any of it, and generation writes nothing outside its output directory.

The contract puts code in every place a template pastes document text: property names (the models' member checks
of our own template among them), enum values, descriptions, defaults, examples, summaries, operationIds, tags and
paths: f-string braces, quotes and triple quotes that would end a literal, newlines that would start a statement,
backslashes, Python keywords and dunders, `../` and absolute paths as tag and operation names (the classes of
CVE-2020-15141 and CVE-2020-15142 in openapi-python-client). Each payload would create a marker file; it never
appears.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

from accessgov_tools.generate import generate
from accessgov_tools.generate_stub import write as write_stub

pytestmark = pytest.mark.slow

KEYWORDS = ["class", "import", "None", "lambda", "__init__", "__class__", "self", "model_config", "def"]
PATHS = ["../x", "../../escape", "/abs/olute", "a/b", "..\\win", "."]

EXERCISE = r"""
import importlib, inspect, json, pkgutil, sys, typing

import models
import accessgov_client
import stub_server.operations
from stub_server import create_app

create_app(seed=1)
create_app(dynamic=True)
assert stub_server.operations.OPERATIONS

exercised = 0
for name, cls in inspect.getmembers(models, inspect.isclass):
    if cls.__module__ != models.__name__:
        continue
    exercised += 1
    if hasattr(cls, "__members__"):
        [str(member.value) for member in cls]
        continue
    if hasattr(cls, "model_json_schema"):
        cls.model_json_schema()
        for data in ({}, {field.alias or key: "x" for key, field in cls.model_fields.items()}):
            try:
                cls.model_validate(data)
            except Exception as error:
                str(error)
pick = models.Pick
fields = list(pick.model_fields.items())
try:
    pick.model_validate({field.alias or key: {} for key, field in fields[:2]})
    raise SystemExit("the at-most-one check did not refuse two members")
except Exception as error:
    message = str(error)
    assert "at most one of" in message and "{__import__(" in message, message  # the name, as text

for module_info in pkgutil.walk_packages(accessgov_client.__path__, "accessgov_client."):
    module = importlib.import_module(module_info.name)
    exercised += 1
    kwargs_of = getattr(module, "_get_kwargs", None)
    if kwargs_of is not None:
        arguments = {
            name: "x"
            for name, parameter in inspect.signature(kwargs_of).parameters.items()
            if parameter.default is inspect.Parameter.empty
        }
        try:
            json.dumps(kwargs_of(**arguments), default=str)
        except Exception as error:
            str(error)
    for _, cls in inspect.getmembers(module, inspect.isclass):
        if cls.__module__ == module.__name__ and hasattr(cls, "from_dict"):
            try:
                cls.from_dict({}).to_dict()
            except Exception as error:
                str(error)
print(f"exercised {exercised}")
"""


def payloads(marker: Path) -> list[str]:
    """Text that runs `Path(marker).touch()` wherever a template pastes it as code."""
    call = f"__import__('pathlib').Path({str(marker)!r}).touch()"
    return [
        "{" + call + "}",
        '"""; ' + call + '; """',
        "'''; " + call + "; '''",
        '"); ' + call + '; ("',
        "'); " + call + "; ('",
        "\n" + call + "\n",
        "\\\n" + call,
        "x\\",
        "{}",
        "{0}",
        "{{}}",
        "%s%(x)s",
        f"__import__('os').system('touch {marker}')",
        "\x00nul",
        "\u202eevil",
        "`tick`",
        "<!-- c -->",
    ]


def hostile_contract(marker: Path) -> dict[str, Any]:
    texts = payloads(marker)
    names = [*texts, *KEYWORDS, *PATHS]
    counter = itertools.count()
    properties: dict[str, Any] = {
        f"p{next(counter)}{text}": {"type": "string", "description": text, "default": text, "examples": [text]}
        for text in names
    }
    properties |= {keyword: {"type": "string", "description": keyword} for keyword in KEYWORDS}
    members = [f"m{index}{text}" for index, text in enumerate(texts[:3])]
    pick = {
        "type": "object",
        "description": texts[1],
        "properties": {member: {"type": ["object", "null"], "description": texts[0]} for member in members},
        "not": {
            "anyOf": [
                {"required": list(pair), "properties": {member: {"type": "object"} for member in pair}}
                for pair in itertools.combinations(members, 2)
            ]
        },
    }
    paths: dict[str, Any] = {}
    for index, text in enumerate([*texts[:6], *PATHS, *KEYWORDS[:3]]):
        paths[f"/r{index}/{{item_id}}"] = {
            "get": {
                "operationId": text if text in PATHS + KEYWORDS else f"op{index}{text}",
                "tags": [text if text in PATHS + KEYWORDS else f"t{index}{text}"],
                "summary": text,
                "description": text,
                "parameters": [
                    {"name": "item_id", "in": "path", "required": True, "schema": {"type": "string"}},
                    {"name": f"q{index}{text}", "in": "query", "schema": {"type": "string", "default": text}},
                ],
                "responses": {
                    "200": {
                        "description": text,
                        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Hostile"}}},
                    }
                },
            }
        }
    return {
        "openapi": "3.1.0",
        "info": {"title": texts[1], "version": "1.0.0", "description": texts[0]},
        "paths": paths,
        "components": {
            "schemas": {
                "Error": {"type": "object", "properties": {"code": {"type": "string"}, "message": {"type": "string"}}},
                "Hostile": {"type": "object", "description": texts[2], "properties": properties},
                "HostileEnum": {"type": "string", "enum": [f"v{index}{text}" for index, text in enumerate(names)]},
                "Pick": pick,
            }
        },
    }


def _tree(root: Path, skip: Path) -> set[str]:
    return {str(path) for path in root.rglob("*") if not path.is_relative_to(skip)}


def test_generated_models_and_sdk_never_run_document_text(tmp_path: Path) -> None:
    marker = tmp_path / "INJECTED"
    out = tmp_path / "out"
    out.mkdir()
    (out / "openapi.json").write_text(json.dumps(hostile_contract(marker), indent=1), encoding="utf-8")
    (out / "openapi.yaml").write_text("", encoding="utf-8")
    before = _tree(tmp_path, out)
    temporary = set(os.listdir(tempfile.gettempdir()))

    generate(out, log=lambda _message: None)
    write_stub(out / "stub_server", out / "openapi.json")

    assert not marker.exists()
    assert _tree(tmp_path, out) == before  # nothing written beside the output directory
    new = set(os.listdir(tempfile.gettempdir())) - temporary
    assert not [name for name in new if "escape" in name or "olute" in name or name in ("x", "win", "b")]
    written = {path.relative_to(out).parts[0] for path in out.rglob("*") if path.is_file()}
    assert written == {"openapi.json", "openapi.yaml", "models", "client", "stub_server"}

    sandbox = tmp_path / "sandbox"
    sandbox.mkdir()
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(out), str(out / "client")]),
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    run = subprocess.run(
        [sys.executable, "-c", EXERCISE], cwd=sandbox, env=env, capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.stdout.startswith("exercised ") and int(run.stdout.split()[1]) > 20
    assert not marker.exists()
    assert list(sandbox.iterdir()) == []
