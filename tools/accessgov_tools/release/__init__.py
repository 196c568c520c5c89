"""From a reviewed contract change to a version: the changelog, the semver release check, the SDK's version.

Built on the findings of `accessgov_tools/diffcheck` (which it calls, never changes): `classify` sorts findings into
breaking / added / deprecated / changed, `versions` holds the semver rule, `phrasing` and `changelog` write the
Markdown a reviewer reads.
"""
