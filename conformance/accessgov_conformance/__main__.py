"""`python -m accessgov_conformance` is `accessgov-conformance`."""

import sys

from .cli import main

sys.exit(main())
