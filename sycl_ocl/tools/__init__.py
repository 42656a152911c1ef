"""Pictures of what sycl_ocl did (docs/tracing.md): the DAG of recent commands in Graphviz
DOT, their timeline as a Chrome trace (chrome://tracing, Perfetto) and as a PNG.

A sycl_ocl extension. Record, then draw::

    from sycl_ocl import tools
    tools.start_tracing()       # queues made from now on profile their commands
    ...                         # submit work, wait for it
    trace = tools.stop_tracing()
    trace.save("run")           # run.dot, run.json, run.png

``python -m sycl_ocl trace SCRIPT [args]`` does the same around a script.

``build_cache_stats()`` counts the kernel builds: in memory, from the disk cache, stored
(docs/kernels.md, "The build cache").
"""

from .._kernel_bundle import build_cache_stats
from .chrome import to_chrome_trace, to_chrome_trace_json
from .dot import to_dot
from .model import Span, Trace
from .recording import current_trace, start_tracing, stop_tracing
from .timeline import save_timeline, timeline_available

__all__ = [
    "Span",
    "Trace",
    "build_cache_stats",
    "current_trace",
    "save_timeline",
    "start_tracing",
    "stop_tracing",
    "timeline_available",
    "to_chrome_trace",
    "to_chrome_trace_json",
    "to_dot",
]
