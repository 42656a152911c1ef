"""``python -m conformance``."""

import sys

from . import console_main

sys.exit(console_main())
