import sys

from accessgov_tools.cli import guarded
from accessgov_tools.diffcheck.cli import main

sys.exit(guarded(main, "python -m accessgov_tools.diffcheck"))
