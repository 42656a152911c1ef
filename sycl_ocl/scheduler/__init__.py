"""The scheduler: one process-wide DAG turning command groups into OpenCL commands.

Modules: ``state`` (the lock), ``op`` (a command), ``lane`` (a queue's in-order OpenCL
queue), ``memory`` (per-buffer records, allocations, counters), ``intervals``,
``coherence`` (dependencies and transfers of one requirement), ``issue`` (enqueueing),
``progress`` (deferred ops), ``hostops`` (host tasks, host accessors, read-backs),
``holds`` (host accessors), ``lifetime`` (buffer destruction), ``submit``.
"""

from .lane import Lane
from .submit import lane_for, submit

__all__ = ["Lane", "lane_for", "submit"]
