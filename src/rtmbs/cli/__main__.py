"""``python -m rtmbs.cli ARGS`` is ``rtmbs ARGS``."""
import sys

from .entry import main

sys.exit(main())
