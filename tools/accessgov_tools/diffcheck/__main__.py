import sys

from accessgov_tools.diffcheck.cli import main

sys.exit(main())
