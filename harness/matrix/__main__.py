"""python -m harness.matrix: the command line of harness/matrix/cli.py."""
import sys

from harness.matrix.cli import main

sys.exit(main())
