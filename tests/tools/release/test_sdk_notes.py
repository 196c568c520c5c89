"""A changelog section's hand-written `### SDKs` notes survive `make changelog` writing the section again."""

from __future__ import annotations

from accessgov_tools.release.changelog import HEADER, insert


def test_a_rewritten_section_keeps_its_sdk_notes() -> None:
    notes = "### SDKs\n\n- TypeScript: a fix in the transport.\n"
    document = insert(HEADER, f"## [Unreleased]\n\nContract changes: 1 added.\n\n{notes}")
    document = insert(document, "## [0.1.0] - 2026-01-01\n\nFirst.\n")
    rewritten = insert(document, "## [Unreleased]\n\nContract changes: 2 added.\n\n### Documentation\n\n- Text.\n")
    unreleased = rewritten.split("## [0.1.0]")[0]
    assert "Contract changes: 2 added." in unreleased and "1 added" not in unreleased
    assert unreleased.rstrip().endswith(notes.rstrip())
    assert rewritten.count("\n### SDKs\n") == 1 and "First." in rewritten
    # A section that brings its own notes replaces the old ones, and writing it twice changes nothing.
    own = insert(rewritten, "## [Unreleased]\n\nSame.\n\n### SDKs\n\n- New notes.\n")
    assert "a fix in the transport" not in own and "- New notes." in own
    assert insert(own, "## [Unreleased]\n\nSame.\n\n### SDKs\n\n- New notes.\n") == own
