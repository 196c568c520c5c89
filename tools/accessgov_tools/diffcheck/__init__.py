"""Breaking-change report for the contract: compare `spec/` at a git ref (or a file) with the working tree's.

`run()` (`pipeline.py`) is the one way in: `make diff` (`cli`), `make changelog` and `make release-check`
(`release/contract.py`) call it. Inside, in layers that only look down: `walk/` pairs the two documents part by
part and yields typed differences; `rules/` turns them into findings of checks, one family a module, each check
id written out once beside its severity and meaning; `compare` joins the two; `inputs` reads the contracts,
`sources` locates a finding in `spec/`, `config` grades the checks (`severities.yaml`), `accepted` marks the
accepted ones (review/accepted-breaking.yaml); `render` writes the report (text, markdown, JSON, GitHub),
`checklist` the list of checks in docs/diff.md. Below the walk: `resolve` (reading bundles: `$ref`/
`$dynamicRef`, `allOf`, unions), `subsume` (whether a schema accepts all another does), `formats`, `memo` (each
pair of schemas compared once), `lifecycle` (sunset and stability levels). `score`, `oasdiff` and `coverage`
measure the engine against oasdiff, `history` on real API histories (docs/diff.md).
"""

from accessgov_tools.diffcheck.pipeline import Report, run

__all__ = ["Report", "run"]
