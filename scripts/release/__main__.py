import sys

from scripts.release.cli import main

sys.exit(main())
