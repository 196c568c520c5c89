import sys

from scripts.diffcheck.cli import main

sys.exit(main())
