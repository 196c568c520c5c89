"""The spec's own text is traced: every sentence of every description and summary of the bundle, every constraint of
every schema an operation reaches and every documented status of every operation has a row in the kit's
statements.yaml naming the requirements that check it, or why none does; a spec change that adds a statement
fails here until it is traced. The counts the READMEs quote are the registry's."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest
from accessgov_conformance import statements, traceability
from accessgov_conformance.rules import all_rules
from accessgov_conformance.statements import Kind, constraints, parse_rows, sentences, split_sentences, table_problems

ROOT = Path(__file__).resolve().parents[2]
BUNDLE = json.loads((ROOT / "generated" / "openapi.json").read_text(encoding="utf-8"))
REQUIREMENTS = {item.id: item for item in traceability.load()}
ROWS = statements.load_rows()


def test_every_statement_of_the_bundle_has_a_row_and_every_row_a_statement() -> None:
    assert table_problems(ROWS, BUNDLE, REQUIREMENTS) == []


def test_a_sentence_added_to_the_spec_fails_until_it_is_traced() -> None:
    changed = copy.deepcopy(BUNDLE)
    schema = changed["components"]["schemas"]["Task"]["properties"]["displayName"]
    schema["description"] += " It is unique within the tenant."
    found = table_problems(ROWS, changed, REQUIREMENTS)
    assert found == [
        "sentences: /components/schemas/Task/properties/displayName/description: no row traces "
        "'It is unique within the tenant.'"
    ]


def test_a_sentence_edited_in_the_spec_is_a_new_statement_and_its_old_row_stale() -> None:
    changed = copy.deepcopy(BUNDLE)
    changed["components"]["schemas"]["TaskExpandMask"]["description"] = changed["components"]["schemas"][
        "TaskExpandMask"
    ]["description"].replace("`*` requests everything.", "`*` requests every path.")
    found = table_problems(ROWS, changed, REQUIREMENTS)
    assert len(found) == 2
    assert "a row for a statement the contract does not make: '`*` requests everything.'" in found[0]
    assert "no row traces '`*` requests every path.'" in found[1]


def test_a_constraint_added_to_a_schema_fails_until_it_is_traced() -> None:
    changed = copy.deepcopy(BUNDLE)
    changed["components"]["schemas"]["TaskActionsServiceRestartRequest"]["properties"]["policyStepId"]["maxLength"] = 64
    assert table_problems(ROWS, changed, REQUIREMENTS) == [
        "constraints: /components/schemas/TaskActionsServiceRestartRequest/properties/policyStepId/maxLength: no row "
        "traces it"
    ]


def test_a_row_naming_an_unknown_requirement_is_a_problem() -> None:
    rows = parse_rows('sentences:\n  - at: /info/summary\n    text: "x."\n    by: [NO-SUCH]\n')
    assert "names requirement NO-SUCH, which traceability.yaml lacks" in table_problems(rows, {}, REQUIREMENTS)[0]


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("sentences:\n  - at: /a\n    text: t\n", "exactly one of by, informative, unobservable"),
        ("sentences:\n  - at: /a\n    by: [X]\n", "gives the sentence's `text`"),
        ("sentences:\n  - at: [/a]\n    text: t\n    by: [X]\n    informative: y\n", "exactly one of"),
        ("nonsense:\n  []\n", "maps sentences, constraints, statuses"),
    ],
)
def test_a_malformed_row_says_what_is_wrong(text: str, error: str) -> None:
    with pytest.raises(statements.TableError, match=re.escape(error)):
        parse_rows(text)


def test_sentences_are_cut_outside_code_spans_tables_and_headings() -> None:
    text = (
        "## Heading\n\nOne sentence (`a. B`). Another, e.g. this one!\n\n"
        "| name | value |\n|---|---|\n| `x` | a row. Still the row |\n\n- A list item. Its second sentence.\n"
    )
    assert split_sentences(text) == [
        "One sentence (`a. B`).",
        "Another, e.g. this one!",
        "| `x` | a row. Still the row |",
        "- A list item.",
        "Its second sentence.",
    ]


def test_constraints_are_found_through_references_with_their_directions() -> None:
    found = {item.pointer: item for item in constraints(BUNDLE)}
    comment = found["/components/schemas/TaskActionsServiceRestartRequest/properties/comment/maxLength"]
    assert comment.value == 4096 and comment.directions == {"request"}
    assert found["/components/schemas/OAuthTokenRequest/required/0"].value == "grant_type"
    assert found["/components/schemas/TaskType/oneOf/0"].directions == {"response"}
    assert found["/components/schemas/TaskExpandMask/properties/paths/type"].value == ["array", "null"]
    assert not any(item.pointer.endswith("/example") for item in found.values())


def test_every_sentence_of_the_bundle_is_read() -> None:
    """Every description and summary yields at least one sentence (a text the splitter dropped is untraced)."""

    def texts(node: object) -> int:
        if isinstance(node, dict):
            own = sum(1 for key in ("description", "summary") if isinstance(node.get(key), str) and node[key].strip())
            return own + sum(texts(value) for key, value in node.items() if key not in ("example", "value"))
        if isinstance(node, list):
            return sum(texts(value) for value in node)
        return 0

    pointers = {item.pointer for item in sentences(BUNDLE)}
    assert len(pointers) == texts(BUNDLE)


def test_informative_and_unobservable_rows_give_a_reason_and_checked_ones_name_rules() -> None:
    for row in ROWS:
        kind = statements.kind(row, REQUIREMENTS)
        if kind in (Kind.INFORMATIVE, Kind.UNOBSERVABLE) and not row.by:
            assert len(row.informative or row.unobservable) > 10, row
        if kind == Kind.CHECKED:
            assert all(REQUIREMENTS[name].rules for name in row.by), row


# --- the counts the READMEs quote ------------------------------------------------------------------------------


def _public() -> object:
    return json.loads((ROOT / "generated" / "variants" / "public.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("readme", ["README.md", "conformance/README.md"])
def test_the_readmes_quote_the_registry_s_counts(readme: str) -> None:
    text = (ROOT / readme).read_text(encoding="utf-8")
    requirements = list(REQUIREMENTS.values())
    assert f"**{len(all_rules())} rules**" in text
    assert f"**{traceability.counts_line(requirements)}**" in text
    tally = statements.tally_line(statements.tally(ROWS, BUNDLE, REQUIREMENTS))
    assert f"**{tally}**" in text


def test_the_readme_quotes_the_self_test_s_size() -> None:
    from tests.conformance.selftest import mutants

    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f"{len(mutants.MUTANTS)} broken servers and {len(mutants.CONTROLS)} harmless ones" in text
