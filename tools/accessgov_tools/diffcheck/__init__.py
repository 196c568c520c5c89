"""Breaking-change report for the contract: compare `spec/` at a git ref with the working tree's.

Modules: `resolve` (reading bundles: `$ref`/`$dynamicRef`, `allOf`, unions), `checks` (the check registry),
`compare` (the walk that reports findings), `memo` (each pair of schemas compared once, cycles included),
`keywords` (JSON Schema 2020-12 keywords), `subsume` (whether a schema accepts all another does: union members),
`formats` (whether a format excludes anything), `lifecycle` (deprecation, sunset, stability), `sources` (bundle
pointer -> spec file and line), `config` (policies, overrides, grace periods from `severities.yaml`), `accepted`
(review/accepted-breaking.yaml), `render` (text, markdown, JSON, GitHub), `cli`; `score`, `oasdiff` and
`coverage` measure the engine against oasdiff, `history` on real API histories (docs/diff.md).
"""
