import sys

from accessgov_tools.release.cli import main

sys.exit(main())
