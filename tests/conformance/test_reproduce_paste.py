"""A failing rule's reproduce snippet, pasted into bash against the same broken server, shows the same bug: the
kit runs against self-test mutants of the reference server (`tests/conformance/selftest`), and the snippet of every
rule of the mutant's family (and of the rules that cross families) that failed (its first failing request) gets the
answer the rule got (its timestamp, event id, signature or JWT made afresh when pasted, a replay's first delivery
sent first)."""

from __future__ import annotations

import dataclasses
import re
import subprocess
from pathlib import Path

import pytest
from accessgov_conformance import transport
from accessgov_conformance.cli import select
from accessgov_conformance.config import load
from accessgov_conformance.context import RunState
from accessgov_conformance.curl import reproduce
from accessgov_conformance.registry import Rule
from accessgov_conformance.rules import all_rules
from accessgov_conformance.runner import run

from tests.conformance.selftest import mutants
from tests.conformance.selftest.target import kit_config, serve_variants

pytestmark = pytest.mark.slow

# One of each way a snippet must be rebuilt: a key derived from the secret, a replay, a stale or signed timestamp,
# an event id outside the signature, another hash, a signature list, a timestamp format, JWTs (signed with the
# listener's key, unsigned, at the exp limit), and the tenant API.
MUTANTS = [
    "webhook-hmac-key-decoded",
    "webhook-duplicate-answered-200",
    "webhook-stale-timestamp-accepted",
    "webhook-hmac-timestamp-off-by-one",
    "webhook-hmac-event-id-not-covered",
    "webhook-hmac-sha1-accepted",
    "webhook-hmac-v1-list",
    "webhook-ts-plus",
    "webhook-jwt-aud-trailing-slash-accepted",
    "webhook-jwt-none-unsigned-accepted",
    "webhook-jwt-exp-no-leeway-ahead",
    "restart-closed-task-restarted",
    "paging-tampered-token-accepted",
]
STATUS = re.compile(r"^HTTP/[0-9.]+ ([0-9]{3})", re.MULTILINE)
# A snippet at the window's edge (now+301 s) reads `date` a few hundredths of a second before curl sends it: pasted
# across a second boundary it lands one second inside. As a user would, the test pastes it again.
ATTEMPTS = 3


# Rules whose checks cross every family's operations (an error's quoting, a credential reused late): a mutant of any
# family can fail them too.
CROSSING = ("errors", "lifetimes")


def family_rules(family: str) -> list[Rule]:
    """The conformance rules a mutant of `family` can fail: its family's (`webhook` holds `webhook-hmac` and
    `webhook-jwt`) and the crossing ones. The other rules' checks go to operations it leaves alone (a whole-kit
    run against these mutants fails no other rule), and the self-test runs them all."""
    chosen = select(all_rules(), "conformance", "")
    return [rule for rule in chosen if rule.family.split("-")[0] == family or rule.family in CROSSING]


def paste(snippet: str, where: Path) -> int:
    """The status of the last answer the pasted snippet printed."""
    done = subprocess.run(["bash", "-c", snippet], cwd=where, capture_output=True, text=True, timeout=60, check=False)
    statuses = STATUS.findall(done.stdout)
    assert statuses, (snippet, done.stderr)
    return int(statuses[-1])


def test_the_snippet_of_every_failing_rule_shows_the_bug_when_pasted(tmp_path: Path) -> None:
    selected = [mutant for mutant in mutants.ALL if mutant.id in MUTANTS]
    assert sorted(mutant.id for mutant in selected) == sorted(MUTANTS)
    pasted = 0
    with serve_variants({mutant.id: mutant.build for mutant in selected}) as (urls, fixtures):
        for number, mutant in enumerate(selected, 1):
            # Each whole-kit run restarts open tasks of its own (as the self-test's do): on the same tasks, the
            # ~150 restarts of each run would grow their workflow history, and every later answer with it.
            config_path = tmp_path / f"selftest-{number}.toml"
            config_path.write_text(kit_config(fixtures, group=0 if mutant.family == "restart" else number), "utf-8")
            # No mutant here breaks a lifetime: the lifetime rules need not wait for their credentials' age.
            config = dataclasses.replace(load(config_path, base_url=urls[mutant.id]), credential_age=0.5)
            with transport.client(30) as client:
                state = RunState(config, 1, client)
                results = run(family_rules(mutant.family), state, lambda *_: None)
            failed = [result for result in results if result.verdict.failed and result.exchange is not None]
            assert failed, f"{mutant.id} survived"
            for result in failed:
                assert result.exchange is not None
                snippet = reproduce(result.exchange, config, result.before)
                got = []
                while len(got) < ATTEMPTS and result.exchange.status not in got:
                    got.append(paste(snippet, tmp_path))
                assert result.exchange.status in got, (mutant.id, result.rule.id, result.reason, got, snippet)
                pasted += 1
    assert pasted >= len(MUTANTS)
