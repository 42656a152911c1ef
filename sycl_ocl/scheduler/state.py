"""The scheduler's one lock: requirements are planned in submission order across threads."""

from __future__ import annotations

import threading

LOCK = threading.RLock()
