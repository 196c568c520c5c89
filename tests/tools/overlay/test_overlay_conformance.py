"""The conformance harness (`accessgov_tools.overlay_conformance`) on a miniature of the Specification's repository
layout."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from accessgov_tools.bundle import dump_yaml
from accessgov_tools.overlay_conformance import Engine, all_cases, main, ours, report, run_case, score

FIXTURES = Path(__file__).parent / "fixtures"
TEXT = """# Overlay Specification

## Version 1.1.0

#### Targeted Overlay Example

```yaml
overlay: 1.1.0
info: {title: only an overlay, version: 1.0.0}
actions:
  - target: $.info
    update: {x-a: 1}
```

#### Copy Example

##### Simple Copy

###### Source Description

```yaml
openapi: 3.1.0
paths:
  /items: {get: {summary: A}}
  /some-items: {delete: {summary: B}}
```

###### Overlay

```yaml
overlay: 1.1.0
info: {title: copy, version: 1.0.0}
actions:
  - target: '$.paths["/some-items"]'
    copy: '$.paths["/items"]'
```

###### Result Description

```yaml
openapi: 3.1.0
paths:
  /items: {get: {summary: A}}
  /some-items: {get: {summary: A}, delete: {summary: B}}
```
"""


def _write(path: Path, doc: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(doc if isinstance(doc, str) else dump_yaml(doc), encoding="utf-8")


def _minimal(version: str, **action: Any) -> dict[str, Any]:
    return {"overlay": version, "info": {"title": "t", "version": "1"}, "actions": [{"target": "$", **action}]}


@pytest.fixture
def spec_repo(tmp_path: Path) -> Path:
    """compliant-sets, released and -dev test folders, a schema that disagrees once, texts old, new and dev."""
    repo = tmp_path / "Overlay-Specification"
    shutil.copytree(FIXTURES / "spec-replace-servers-for-sandbox", repo / "compliant-sets" / "replace-servers")
    _write(repo / "tests/v1.0/pass/minimal.yaml", _minimal("1.0.0"))
    _write(repo / "tests/v1.0/fail/copy-in-10.yaml", _minimal("1.0.0", copy="$.info"))
    _write(repo / "tests/v1.1/pass/copy.yaml", _minimal("1.1.0", copy="$.info"))
    _write(repo / "tests/v1.1/fail/not-an-object.yaml", "- a\n- b\n")
    _write(repo / "tests/v1.2-dev/pass/minimal.yaml", _minimal("1.2.0"))
    # A schema that only accepts objects without `actions`: it contradicts the v1.1 pass folder.
    _write(repo / "schemas/v1.1/schema.yaml", {"type": "object", "not": {"required": ["actions"]}})
    _write(repo / "versions/1.0.0.md", TEXT.replace("Simple Copy", "Old Copy"))
    _write(repo / "versions/1.1.0.md", TEXT)
    _write(repo / "versions/1.2.0-dev.md", TEXT.replace("Simple Copy", "Dev Copy"))
    return repo


def test_cases_are_collected_from_released_material_only(spec_repo: Path) -> None:
    names = [(case.kind, case.name) for case in all_cases(spec_repo)]
    assert names == [
        ("compliant-set", "compliant-sets/replace-servers"),
        ("pass", "tests/v1.0/pass/minimal.yaml"),
        ("fail", "tests/v1.0/fail/copy-in-10.yaml"),
        ("pass", "tests/v1.1/pass/copy.yaml"),
        ("fail", "tests/v1.1/fail/not-an-object.yaml"),
        ("text-example", "versions/1.1.0.md: Simple Copy"),
    ]


def test_our_engine_behaves_as_the_standard_says_on_every_case(spec_repo: Path) -> None:
    outcomes, problems = score(spec_repo, ours(strict=False))
    assert [o.case.name for o in outcomes if not o.ok] == []
    assert problems == ["tests/v1.1/pass/copy.yaml: the folder says pass, the schema says otherwise"]
    text = report(ours(strict=False), outcomes, problems)
    assert text.startswith("accessgov_tools.overlay: 6 of 6 cases behave as the standard says")
    # The text's result lists `get` first; ours appends it: reported, not counted.
    assert "other key order (JSON objects are unordered; not counted):\n  - versions/1.1.0.md: Simple Copy" in text


def test_strict_mode_refuses_the_schema_valid_no_op_action(spec_repo: Path) -> None:
    outcomes, _ = score(spec_repo, ours(strict=True))
    assert [o.case.name for o in outcomes if not o.ok] == ["tests/v1.0/pass/minimal.yaml"]


def test_an_engine_that_accepts_everything_is_listed_case_by_case(spec_repo: Path) -> None:
    lenient = Engine("lenient", lambda doc, source: None, lambda doc, document, source: document)
    outcomes, problems = score(spec_repo, lenient)
    text = report(lenient, outcomes, problems)
    assert text.splitlines()[0] == "lenient: 2 of 6 cases behave as the standard says"
    assert "  - tests/v1.0/fail/copy-in-10.yaml (fail): accepted" in text
    assert "  - versions/1.1.0.md: Simple Copy (text-example): result differs from the expected document" in text


def test_a_golden_triple_with_error_txt_must_be_refused() -> None:
    from accessgov_tools.overlay_conformance import golden_triples

    cases = {case.name: case for case in golden_triples(FIXTURES)}
    lenient = Engine("lenient", lambda doc, source: None, lambda doc, document, source: document)
    refusal = cases["copy-error-source-selects-two"]
    assert refusal.refused
    assert run_case(ours(strict=False), refusal).ok
    assert not run_case(lenient, refusal).ok
    assert run_case(lenient, cases["target-only-is-a-no-op-in-10"]).ok  # identity is right there


def test_cli_reads_the_repository_from_the_environment(
    spec_repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("OVERLAY_SPEC_REPO", str(spec_repo))
    assert main(["--golden", str(FIXTURES)]) == 0
    out = capsys.readouterr().out
    assert "accessgov_tools.overlay: 6 of 6 cases behave as the standard says" in out
    assert "golden triples of fixtures/ behave as the standard says" in out
    assert main(["--strict", "--golden", ""]) == 1


def test_cli_scores_an_engine_from_a_file(spec_repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    engine = tmp_path / "engine.py"
    engine.write_text(
        "def parse_overlay(doc, source):\n"
        "    if not isinstance(doc, dict):\n"
        "        raise ValueError('not a mapping')\n"
        "    return doc\n\n"
        "def apply_overlay(overlay, document):\n"
        "    return document\n",
        encoding="utf-8",
    )
    assert main(["--spec-repo", str(spec_repo), "--engine", f"file:{engine}", "--golden", ""]) == 1
    out = capsys.readouterr().out
    assert f"{engine}: 3 of 6 cases behave as the standard says" in out
    assert "golden triples" not in out


def test_cli_needs_the_repository(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("OVERLAY_SPEC_REPO", raising=False)
    with pytest.raises(SystemExit):
        main([])
    with pytest.raises(SystemExit, match="no Overlay Specification material"):
        main(["--spec-repo", str(tmp_path)])
