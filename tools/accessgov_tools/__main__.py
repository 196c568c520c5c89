"""`python -m accessgov_tools COMMAND ...`, the same as the `accessgov-tools` console script."""

import sys

from accessgov_tools.cli import main

sys.exit(main())
