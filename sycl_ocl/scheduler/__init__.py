"""The scheduler: one process-wide DAG turning command groups into OpenCL commands.

Modules: ``state`` (the lock), ``op`` (a command), ``lane`` (a queue's in-order OpenCL
queue), ``memory_object`` (a buffer's coherence record, its allocations and counters),
``intervals``, ``coherence`` (dependencies and transfers of one requirement), ``issue``
(enqueueing), ``progress`` (deferred ops), ``hostops`` (host tasks, host accessors,
read-backs), ``holds`` (host accessors), ``lifetime`` (buffer destruction), ``actions``
(what a command does), ``command_group`` (submitting one).
"""

from .command_group import lane_for, submit
from .lane import Lane

__all__ = ["Lane", "lane_for", "submit"]
