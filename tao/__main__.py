"""`python -m tao` runs the `tao` command."""

import sys

from .command import main

sys.exit(main())
