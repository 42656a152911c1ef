"""The scheduler's fast paths (docs/scheduler.md, "Fast paths"): decisions taken once by full
planning, replayed.

- ``plans``: the plan cache, a requirement's plan replayed while its memory object is in the
  layout the plan followed;
- ``shape``: a kernel launch checked once, launched again on memory bound once;
- ``direct``: a USM kernel launch with no requirement and no dependency, enqueued at once.

One contract: a replay leaves exactly what full planning (``coherence.plan``, ``command_group
.submit``) leaves: the same frontier, validity and edges, with the one exception that rule
S17 states (a completed command keeps its place in a replayed frontier). The differential
tests in ``tests/unit/test_replay.py`` check it for every path.
"""
