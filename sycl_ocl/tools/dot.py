"""The DAG of a trace in Graphviz DOT: one node per command, one edge per dependency.

A node names the command (``#7 kernel scale``), its queue and device, and the bytes it moved;
an edge runs from the earlier command to the later, labelled with its reason (``RAW buffer 2``,
``depends_on``, ``in-order queue``, ``host accessor``). Solid edges entered the DAG; dashed ones
are kept by the order of one OpenCL queue; dotted ones lead from a command that had completed
when the later one was submitted. Render with Graphviz: ``dot -Tsvg trace.dot -o trace.svg``.
"""

from __future__ import annotations

from .model import Trace, color, command_name, lane_name, memory_name, size_text, transfer_direction


def to_dot(trace: Trace) -> str:
    """The DAG of ``trace`` as a Graphviz DOT digraph, a string (a sycl_ocl extension).

    Example::

        trace = tools.stop_tracing()
        open("run.dot", "w").write(tools.to_dot(trace))   # then: dot -Tsvg run.dot -o run.svg
    """
    lines = [
        "digraph sycl_ocl {",
        f"  label={_quote(trace.title)}; labelloc=t; fontname=Helvetica;",
        "  rankdir=LR;  // time runs left to right, as on the timeline",
        "  node [shape=box, style=\"rounded,filled\", fontname=Helvetica, fontsize=10];",
        "  edge [fontname=Helvetica, fontsize=9];",
    ]
    for op in trace.ops:
        where = lane_name(op.lane) + (f" · {op.lane.device}" if op.lane is not None else "")
        label = [f"#{op.serial} {command_name(op)}", where]
        moved = sum(nbytes for _, nbytes in op.transfers)
        if moved:
            label.append(f"{transfer_direction(op)} {size_text(moved)}")
        if op.nbytes:
            label.append(f"{op.what} {size_text(op.nbytes)}")
        border = ", color=red, penwidth=2" if op.failed else ""
        fill = color(op.what) + "55"  # translucent: the text stays readable
        lines.append(f"  n{op.serial} [label={_quote(chr(10).join(label))}, fillcolor=\"{fill}\"{border}];")
    for edge in trace.edges:
        text = edge.reason + (f" {memory_name(edge.memory)}" if edge.memory is not None else "")
        style = _STYLES[edge.state]
        lines.append(f"  n{edge.before} -> n{edge.after} [label={_quote(text)}{style}];")
    lines.append("}")
    return "\n".join(lines) + "\n"


# Solid: the edge entered the DAG; dashed: the OpenCL queue's order keeps it; dotted: what was
# waited for had completed at submission.
_STYLES = {
    "waited": "",
    "implied": ", style=dashed, color=gray40, fontcolor=gray40",
    "completed": ", style=dotted, color=gray55, fontcolor=gray55",
}


def _quote(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'
