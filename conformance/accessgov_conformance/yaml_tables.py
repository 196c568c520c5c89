"""The kit's own tables (traceability.yaml, statements.yaml) read as YAML: with libyaml's safe loader where PyYAML
has it (its wheels do; ~7x faster than the pure-Python one, which every run and every process that imports the
tables would pay), the pure-Python safe loader otherwise. Both build the same documents and raise `yaml.YAMLError`.
"""

from __future__ import annotations

from typing import Any

import yaml

SAFE_LOADER: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load(text: str) -> Any:
    """The document of `text`, with YAML's safe types only."""
    return yaml.load(text, Loader=SAFE_LOADER)  # a safe loader: libyaml's or PyYAML's
