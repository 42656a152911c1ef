"""``python -m conformance``."""

import sys

from .cli import main

sys.exit(main())
