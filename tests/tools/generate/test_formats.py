"""Every format of JSON Schema 2020-12 and OpenAPI 3.1 regenerates into SDKs that import and parse it: a field of
each format of docs/typescript-sdk.md's table is added to a copy of the contract (one schema per format), the models,
the Python SDK and the TypeScript SDK's types are regenerated into a temporary directory, the Python packages are
imported in environments holding only their declared dependencies and parse the row's value there, the TypeScript
compiles, and each generated type is the table's. And a contract change that breaks a generated SDK fails
check-generated with a message naming the schema."""

from __future__ import annotations

import functools
import json
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from accessgov_tools import check_generated, client_check, generate, generate_ts
from accessgov_tools.generate import REPO

# One group: the probes' generation and the parses in clean environments (the module fixtures) are made once, not
# once on every worker the tests would otherwise be spread over.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("generate-formats")]

DOC = REPO / "docs" / "typescript-sdk.md"
# The formats the standards name: JSON Schema 2020-12's validation vocabulary, OpenAPI 3.1's data types, and the
# OpenAPI format registry's.
JSON_SCHEMA_FORMATS = {
    "date-time", "date", "time", "duration", "email", "idn-email", "hostname", "idn-hostname", "ipv4", "ipv6", "uri",
    "uri-reference", "iri", "iri-reference", "uuid", "uri-template", "json-pointer", "relative-json-pointer", "regex",
}  # fmt: skip
OPENAPI_FORMATS = {"int32", "int64", "float", "double", "password", "byte", "binary"}
REGISTRY_FORMATS = {
    "base64url", "char", "commonmark", "date-time-local", "decimal", "decimal128", "double-int", "html", "http-date",
    "int8", "int16", "media-range", "sf-binary", "sf-boolean", "sf-decimal", "sf-integer", "sf-string", "sf-token",
    "time-local", "uint8", "uint16", "uint32", "uint64",
}  # fmt: skip


@dataclass(frozen=True)
class Row:
    format: str
    json_type: str
    models: str
    client: str
    typescript: str
    value: Any

    @property
    def schema(self) -> str:
        return "FormatProbe" + self.json_type.title() + "".join(part.title() for part in re.split(r"[-_]", self.format))

    def __str__(self) -> str:
        return f"{self.json_type}+{self.format}"


def _code(cell: str) -> str:
    found = re.search(r"`([^`]+)`", cell)
    assert found, f"no `code` in {cell!r}"
    return found.group(1)


def table() -> list[Row]:
    text = DOC.read_text(encoding="utf-8")
    body = text.split("<!-- formats table: read by tests/tools/generate/test_formats.py -->", 1)[1]
    rows = []
    for line in body.strip().splitlines()[2:]:
        if not line.startswith("|"):
            break
        cells = [cell.strip() for cell in line.strip("|").split(" | ")]
        value = json.loads(_code(cells[5]))
        rows.append(Row(_code(cells[0]), cells[1], _code(cells[2]), _code(cells[3]), _code(cells[4]), value))
    return rows


ROWS = table()


def test_the_table_names_every_format_of_the_standards() -> None:
    named = {row.format for row in ROWS}
    missing = (JSON_SCHEMA_FORMATS | OPENAPI_FORMATS | REGISTRY_FORMATS) - named
    assert not missing, sorted(missing)
    assert len({(row.json_type, row.format) for row in ROWS}) == len(ROWS)


def _with_probes(document: dict[str, Any]) -> dict[str, Any]:
    schemas = document["components"]["schemas"]
    for row in ROWS:
        schemas[row.schema] = {"type": "object", "properties": {"value": {"type": row.json_type, "format": row.format}}}
    return document


@pytest.fixture(scope="module")
def probes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The contract with one schema per format, regenerated (models, Python SDK, TypeScript types) into a directory."""
    out = tmp_path_factory.mktemp("format-probes")
    bundle = _with_probes(json.loads((REPO / "generated" / "openapi.json").read_text(encoding="utf-8")))
    sdk = _with_probes(json.loads((REPO / "generated" / "variants" / "sdk.json").read_text(encoding="utf-8")))
    (out / "openapi.json").write_text(json.dumps(bundle), encoding="utf-8")
    (out / "variants").mkdir()
    (out / "variants" / "sdk.json").write_text(json.dumps(sdk), encoding="utf-8")
    (out / "variants" / "sdk.yaml").write_text(yaml.safe_dump(sdk, sort_keys=False), encoding="utf-8")
    generate.generate(out, log=lambda _: None)
    generate_ts.generate(out, out / "typescript")
    return out


@functools.cache
def _models_annotations(out: Path) -> dict[str, str]:
    """The annotation of each probe's `value` in the models (parsed once per directory: the file does not change)."""
    import ast

    tree = ast.parse((out / "models" / "__init__.py").read_text(encoding="utf-8"))
    found = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name.startswith("FormatProbe"):
            for statement in node.body:
                if isinstance(statement, ast.AnnAssign) and ast.unparse(statement.target) == "value":
                    annotation = statement.annotation
                    if isinstance(annotation, ast.Subscript) and ast.unparse(annotation.value) == "Annotated":
                        annotation = annotation.slice.elts[0]  # type: ignore[attr-defined]
                    found[node.name] = ast.unparse(annotation).replace(" | MISSING", "")
    return found


def _client_annotation(out: Path, schema: str) -> str:
    models = out / "client" / "accessgov_client" / "models"
    for path in models.glob("format_probe_*.py"):
        text = path.read_text(encoding="utf-8")
        if f"class {schema}:" in text:
            match = re.search(r"^    value: (.+?)( \| Unset)? = UNSET$", text, re.MULTILINE)
            assert match, path
            return match.group(1)
    raise AssertionError(f"no client model for {schema}")


def _typescript_type(out: Path, schema: str) -> str:
    text = (out / "typescript" / "schema.ts").read_text(encoding="utf-8")
    match = re.search(rf"^        {schema}: {{\n(?:\s*/\*\*.*\*/\n)?\s*value\?: ([^;]+);", text, re.MULTILINE)
    assert match, f"no {schema} in schema.ts"
    return match.group(1)


@pytest.mark.parametrize("row", ROWS, ids=str)
def test_each_format_becomes_the_documented_types(row: Row, probes: Path) -> None:
    assert _models_annotations(probes)[row.schema] == row.models, "models"
    assert _client_annotation(probes, row.schema) == row.client, "Python SDK"
    assert _typescript_type(probes, row.schema) == row.typescript, "TypeScript SDK"


def test_the_models_and_the_sdk_import_with_their_declared_dependencies_only(probes: Path) -> None:
    schemas = [row.schema for row in ROWS]
    assert client_check.check_python(probes, schemas) == []


# Parses each row's value with the models' and the SDK's class, in the environment of each.
_PARSE = r"""
import json, sys
root, package, rows = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
sys.path.insert(0, root)
if package == "models":
    import models as found
else:
    from accessgov_client import models as found
results = {}
for name, value in rows:
    try:
        cls = getattr(found, name)
        if package == "models":
            json.dumps(cls.model_validate({"value": value}).model_dump(mode="json", by_alias=True))
        else:
            json.dumps(cls.from_dict({"value": value}).to_dict(), default=str)
        results[name] = "ok"
    except Exception as error:
        results[name] = f"{type(error).__name__}: {error}"
print(json.dumps(results))
"""


@pytest.fixture(scope="module")
def parsed(probes: Path) -> dict[str, dict[str, str]]:
    rows = json.dumps([[row.schema, row.value] for row in ROWS])
    environments = {
        "models": (client_check.clean_env(client_check.MODELS_REQUIREMENTS), probes),
        "client": (client_check.clean_env(client_check.declared_dependencies(probes / "client")), probes / "client"),
    }
    results = {}
    for package, (python, root) in environments.items():
        done = subprocess.run(
            [str(python), "-I", "-c", _PARSE, str(root), package, rows], capture_output=True, text=True, check=False
        )
        assert done.returncode == 0, done.stderr
        results[package] = json.loads(done.stdout)
    return results


@pytest.mark.parametrize("row", ROWS, ids=str)
def test_a_value_of_each_format_parses_in_both_python_packages(row: Row, parsed: dict[str, dict[str, str]]) -> None:
    assert parsed["models"][row.schema] == "ok", f"models: {parsed['models'][row.schema]}"
    assert parsed["client"][row.schema] == "ok", f"Python SDK: {parsed['client'][row.schema]}"


def test_the_typescript_compiles_and_a_broken_type_is_named_by_its_schema(probes: Path, tmp_path: Path) -> None:
    broken = tmp_path / "generated"
    shutil.copytree(probes / "typescript", broken)
    schema_ts = broken / "schema.ts"
    text = schema_ts.read_text(encoding="utf-8")
    probe = "FormatProbeStringEmail"
    schema_ts.write_text(
        text.replace(f"        {probe}: {{\n", f"        {probe}: NoSuchType & {{\n", 1), encoding="utf-8"
    )
    failures = generate_ts.compile_check(broken)
    # Only the injected error: everything else (the package and every probe) compiles.
    assert [(failure.schema, "NoSuchType" in failure.message) for failure in failures] == [(probe, True)], failures
    assert str(failures[0]).startswith(f"schema {probe} (src/generated/schema.ts:")


def test_check_generated_names_the_schema_whose_models_do_not_import(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The models as they were before `format: email` became a plain string: EmailStr, which needs email-validator.
    flags = generate.DATAMODEL_FLAGS
    at = flags.index("--type-mappings")
    monkeypatch.setattr(generate, "DATAMODEL_FLAGS", flags[:at] + flags[at + 1 + len(generate.STRING_FORMATS) :])
    spec = tmp_path / "spec"
    shutil.copytree(REPO / "spec", spec)
    schema_file = spec / "components" / "schemas" / "AppEntitlement.yaml"
    schema = yaml.safe_load(schema_file.read_text(encoding="utf-8"))
    schema["properties"]["ownerEmail"] = {"type": "string", "format": "email", "description": "Who owns it."}
    schema_file.write_text(yaml.safe_dump(schema, sort_keys=False), encoding="utf-8")

    assert check_generated.main(["--spec-root", str(spec), "--no-typescript"]) == 1
    err = capsys.readouterr().err
    assert "problem(s) in the SDKs this contract generates" in err
    assert re.search(r"schema AppEntitlement \(models/__init__\.py:\d+\): ImportError: email-validator", err), err
