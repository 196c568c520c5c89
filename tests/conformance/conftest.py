"""The kit's own tests: the kit (`conformance/`) and the SDK it signs with are imported from the checkout."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
for path in (ROOT / "conformance", ROOT / "generated" / "client"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))
