"""The scheduler's fast paths (docs/scheduler.md, "Fast paths"): decisions taken once by full
planning, replayed.

- ``plans``: the plan cache, a requirement's plan replayed while its memory object is in the
  layout the plan followed;
- ``shape``: a kernel launch checked once, launched again on memory bound once;
- ``copies``: an explicit copy between a window and host memory checked once, enqueued
  again at once;
- ``direct``: a USM kernel launch with no requirement and no dependency, enqueued at once.

- ``prepared``: a kernel with its arguments set on a ``cl_kernel`` of its own, which shapes,
  command graphs and the direct path launch on.

One contract: a replay leaves exactly what full planning (``coherence.plan`` through
``command_group.submit``) leaves: the same frontier, validity and edges, but for completed
commands, which a replayed frontier keeps where the plan kept them (nothing waits for them:
rule S6). The differential tests of ``tests/unit`` check it for every path
(``test_plan_cache.py``, ``test_shape.py``, ``test_replay.py``).
"""
