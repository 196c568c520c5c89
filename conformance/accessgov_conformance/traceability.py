"""The traceability table: every testable statement of the contract, its source, and the rules that check it.

The table is `traceability.yaml`, shipped inside the package (format in its header comment). `load` reads and
validates it (a malformed entry is a `TraceabilityError` naming the entry); `problems` lists what keeps it from
being whole against a set of registered rules; `counts` sums the statuses (`rules --coverage` prints both).
"""

from __future__ import annotations

import enum
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

import yaml

from . import yaml_tables
from .spec import contract_pointers

RESOURCE = "traceability.yaml"
REQUIREMENT_ID = re.compile(r"^[A-Z][A-Z0-9]*(-[A-Z0-9]+)*$")
VARIANT_NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
KEYS = {"id", "source", "text", "rules", "variants", "partial", "unobservable", "decision"}
SOURCE_KEYS = {"requirements", "spec"}


class TraceabilityError(ValueError):
    """The table is malformed; the message names the section and entry."""


class Status(enum.StrEnum):
    CHECKED = "checked"
    PARTIAL = "partial"
    UNOBSERVABLE = "unobservable"
    UNCOVERED = "uncovered"


@dataclass(frozen=True)
class Requirement:
    """One testable statement of the contract."""

    id: str
    section: str
    text: str
    requirements: str = ""  # the section of the requirements document that states it
    spec: str = ""
    rules: tuple[str, ...] = ()
    # variant name -> the rules that send it (forbidden variants, or for an "accepts" requirement allowed ones)
    variants: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    partial: str = ""
    unobservable: str = ""
    decision: str = ""

    @property
    def status(self) -> Status:
        if self.rules:
            return Status.PARTIAL if self.partial else Status.CHECKED
        return Status.UNOBSERVABLE if self.unobservable else Status.UNCOVERED

    @property
    def source(self) -> str:
        """`spec: <pointer into the contract>; requirements: <section>`, as an implementer can look them up."""
        parts = [
            f"spec: {contract_pointers(self.spec)}" if self.spec else "",
            self.requirements and f"requirements: {self.requirements}",
        ]
        return "; ".join(part for part in parts if part)

    def variant_keys(self) -> list[str]:
        """`REQUIREMENT-ID/variant` for each variant: what a self-test mutant's `covers` names."""
        return [f"{self.id}/{name}" for name in self.variants]


def _text(where: str, key: str, value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise TraceabilityError(f"{where}: `{key}` must be a non-empty string, got {value!r}")
    return value.strip()


def _rule_ids(where: str, key: str, value: Any) -> tuple[str, ...]:
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not all(isinstance(item, str) and item for item in items):
        raise TraceabilityError(f"{where}: `{key}` must be a rule id or a list of rule ids, got {value!r}")
    return tuple(items)


def _requirement(section: str, index: int, entry: Any) -> Requirement:
    where = f"section {section!r}, entry {index + 1}"
    if not isinstance(entry, dict):
        raise TraceabilityError(f"{where}: an entry is a mapping (id, source, text, rules...), got {entry!r}")
    requirement_id = entry.get("id")
    if not isinstance(requirement_id, str) or not REQUIREMENT_ID.match(requirement_id):
        raise TraceabilityError(f"{where}: `id` must be UPPER-KEBAB (like JWT-AUD), got {requirement_id!r}")
    where = f"section {section!r}, requirement {requirement_id}"
    unknown = set(entry) - KEYS
    if unknown:
        known = ", ".join(sorted(KEYS))
        raise TraceabilityError(f"{where}: unknown key(s) {', '.join(sorted(unknown))} (known: {known})")
    source = entry.get("source")
    if not isinstance(source, dict) or not source or set(source) - SOURCE_KEYS:
        raise TraceabilityError(
            f"{where}: `source` must be a mapping with `requirements` and/or `spec`, got {source!r}"
        )
    variants_in = entry.get("variants") or {}
    if not isinstance(variants_in, dict):
        raise TraceabilityError(f"{where}: `variants` must map a variant name to its rule id(s), got {variants_in!r}")
    variants: dict[str, tuple[str, ...]] = {}
    for name, rules in variants_in.items():
        if not isinstance(name, str) or not VARIANT_NAME.match(name):
            raise TraceabilityError(f"{where}: variant name {name!r} must be lower-kebab (like trailing-slash)")
        variants[name] = _rule_ids(where, f"variants.{name}", rules)
    rules = _rule_ids(where, "rules", entry["rules"]) if entry.get("rules") is not None else ()
    requirement = Requirement(
        id=requirement_id,
        section=section,
        text=_text(where, "text", entry.get("text")),
        requirements=_text(where, "source.requirements", source["requirements"]) if "requirements" in source else "",
        spec=_text(where, "source.spec", source["spec"]) if "spec" in source else "",
        rules=rules,
        variants=variants,
        partial=_text(where, "partial", entry["partial"]) if "partial" in entry else "",
        unobservable=_text(where, "unobservable", entry["unobservable"]) if "unobservable" in entry else "",
        decision=_text(where, "decision", entry["decision"]) if "decision" in entry else "",
    )
    if requirement.rules and requirement.unobservable:
        raise TraceabilityError(f"{where}: names rules and `unobservable` (a requirement is one or the other)")
    if requirement.partial and not requirement.rules:
        raise TraceabilityError(f"{where}: `partial` without rules (say `unobservable`, or name the rules)")
    if requirement.variants and not requirement.rules:
        raise TraceabilityError(f"{where}: variants without rules (a variant is sent by one of the rules)")
    return requirement


def parse(text: str) -> list[Requirement]:
    """The requirements of a traceability document, in file order; a `TraceabilityError` for a malformed one
    (duplicate requirement ids included)."""
    try:
        document = yaml_tables.load(text)
    except yaml.YAMLError as error:
        raise TraceabilityError(f"not valid YAML: {error}") from error
    if not isinstance(document, dict):
        raise TraceabilityError("the document must be a mapping of section name -> list of requirements")
    requirements: list[Requirement] = []
    seen: dict[str, str] = {}
    for section, entries in document.items():
        if not isinstance(entries, list):
            raise TraceabilityError(f"section {section!r}: must be a list of requirements, got {entries!r}")
        for index, entry in enumerate(entries):
            requirement = _requirement(str(section), index, entry)
            if requirement.id in seen:
                raise TraceabilityError(
                    f"section {section!r}, requirement {requirement.id}: duplicate id (also in section "
                    f"{seen[requirement.id]!r})"
                )
            seen[requirement.id] = str(section)
            requirements.append(requirement)
    return requirements


def load() -> list[Requirement]:
    """The kit's own table (`traceability.yaml` in the package)."""
    return parse(resources.files("accessgov_conformance").joinpath(RESOURCE).read_text(encoding="utf-8"))


def problems(requirements: Iterable[Requirement], registered: Iterable[str]) -> list[str]:
    """What keeps the table from being whole against the `registered` rule ids: requirements with neither rules
    nor a reason, rule ids that do not exist, registered rules no requirement names, variants sent by a rule
    that is not one of the requirement's rules."""
    known = set(registered)
    named: set[str] = set()
    found = []
    for item in requirements:
        if item.status == Status.UNCOVERED:
            found.append(f"{item.id}: neither rules nor `unobservable`")
        named.update(item.rules)
        for rule_id in item.rules:
            if rule_id not in known:
                found.append(f"{item.id}: names rule {rule_id}, which the kit does not register")
        for name, rules in item.variants.items():
            for rule_id in rules:
                if rule_id not in item.rules:
                    found.append(f"{item.id}/{name}: sent by {rule_id}, which is not among the requirement's rules")
    found += [f"rule {rule_id}: no requirement names it" for rule_id in sorted(known - named)]
    return found


def counts(requirements: Iterable[Requirement]) -> dict[Status, int]:
    """How many requirements have each status (every status present, zero or not)."""
    tally = Counter(item.status for item in requirements)
    return {status: tally.get(status, 0) for status in Status}


def counts_line(requirements: Iterable[Requirement]) -> str:
    """`N requirements: a checked, b partial, c unobservable, d uncovered` (the README quotes this line)."""
    tally = counts(requirements)
    total = sum(tally.values())
    return f"{total} requirements: " + ", ".join(f"{tally[status]} {status}" for status in Status)


def rules_of(requirements: Iterable[Requirement], keys: Iterable[str]) -> set[str]:
    """The rules of the requirements that `keys` (`REQUIREMENT-ID/variant` or `REQUIREMENT-ID`) name."""
    by_id = {item.id: item for item in requirements}
    chosen: set[str] = set()
    for key in keys:
        requirement = by_id.get(key.split("/", 1)[0])
        if requirement is not None:
            chosen.update(requirement.rules)
    return chosen
