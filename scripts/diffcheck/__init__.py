"""Breaking-change report for the contract: compare `spec/` at a git ref with the working tree's.

Modules: `resolve` (reading bundles: `$ref`, `allOf`, unions), `checks` (the check registry),
`compare` (the walk that reports findings), `sources` (bundle pointer -> spec file and line),
`config` (severity overrides from `severities.yaml`), `render` (text, markdown, JSON, GitHub), `cli`.
"""
