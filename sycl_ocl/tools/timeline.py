"""A trace as a timeline picture (PNG, SVG, ...: any format matplotlib writes).

One lane per queue, top to bottom in the order the queues were made, and a last lane for the
host work of no queue (host accessors, read-backs on the way to another device). Commands are
bars coloured by kind and labelled where the label fits; transfers are thinner bars under
them (host to device in purple, device to host in pink). Bars that overlap in time (host
tasks of one queue run on threads of their own) stack in rows of their lane. The time axis
counts from the first command, in µs, ms or s.

matplotlib is an optional dependency: ``pip install sycl_ocl[trace]``.
"""

from __future__ import annotations

from importlib.util import find_spec
from typing import Any

from .._exception import errc, exception
from .model import HOST_LANE, Span, Trace, color, lane_name

BAR, TRANSFER, GAP = 0.5, 0.26, 0.3  # heights, in lane units, of a command row, a transfer row, a gap
MIN_PX = 2.0  # the narrowest bar drawn, in pixels
CHAR_PX = 0.62  # a character's width, in font sizes (points), for deciding whether a label fits


def timeline_available() -> bool:
    """Whether matplotlib is installed (``pip install sycl_ocl[trace]``), which the timeline
    picture needs (a sycl_ocl extension)."""
    return find_spec("matplotlib") is not None


def save_timeline(trace: Trace, path: str, width_in: float = 13.0, dpi: int = 110) -> None:
    """Draw the timeline of ``trace`` into ``path`` (its suffix picks the format: .png, .svg,
    ...); a sycl_ocl extension.

    Args:
        trace: what ``stop_tracing`` or ``current_trace`` returned.
        path: the file to write.
        width_in: the picture's width in inches (its height follows from the lanes).
        dpi: dots per inch.

    Raises:
        sycl.exception: ``errc.feature_not_supported`` without matplotlib (install
            ``sycl_ocl[trace]``).
    """
    if not timeline_available():
        raise exception(errc.feature_not_supported,
                        "the timeline needs matplotlib: pip install 'sycl_ocl[trace]'")
    from matplotlib.figure import Figure

    lanes = trace.lane_names()
    rows = {lane: _rows([s for s in trace.spans if s.lane == lane]) for lane in lanes}
    heights = {lane: _height(*rows[lane]) for lane in lanes}
    total = sum(heights.values()) or 1.0
    height_in = 1.6 + 0.75 * total  # 0.9 in below the axes (time axis, legend), 0.7 in above
    fig = Figure(figsize=(width_in, height_in), dpi=dpi)
    ax = fig.add_axes((0.15, 0.9 / height_in, 0.83, 0.75 * total / height_in))
    scale, unit = _unit(max((s.end_ns for s in trace.spans), default=0))
    px_per_unit = _px_per_unit(fig, ax, trace, scale)
    ticks, names, top = [], [], 0.0
    for index, lane in enumerate(lanes):
        if index % 2:
            ax.axhspan(top, top + heights[lane], color="#F2F2F2", zorder=0)
        _draw_lane(ax, rows[lane], top + GAP / 2, scale, px_per_unit)
        ticks.append(top + heights[lane] / 2)
        names.append(_lane_label(trace, lane))
        top += heights[lane]
    ax.set_ylim(top, 0)
    ax.set_yticks(ticks, names, fontsize=9)
    ax.set_xlim(left=0)
    ax.set_xlabel(f"time since the first command ({unit})")
    ax.grid(axis="x", color="#DDDDDD", zorder=0)
    ax.set_axisbelow(True)
    ax.set_title(f"{trace.title}: {_counts(trace)}", fontsize=11, loc="left")
    _legend(fig, trace)
    fig.savefig(path)


def _rows(spans: list[Span]) -> tuple[list[list[Span]], list[list[Span]]]:
    """The lane's commands and its transfers, each stacked in rows where bars overlap."""
    return _stack([s for s in spans if not s.transfer]), _stack([s for s in spans if s.transfer])


def _stack(spans: list[Span]) -> list[list[Span]]:
    rows: list[list[Span]] = []
    for span in sorted(spans, key=lambda s: (s.start_ns, s.end_ns)):
        row = next((r for r in rows if r[-1].end_ns <= span.start_ns), None)
        if row is None:
            rows.append([span])
        else:
            row.append(span)
    return rows


def _height(commands: list[list[Span]], transfers: list[list[Span]]) -> float:
    return GAP + BAR * max(len(commands), 1) + TRANSFER * len(transfers)


def _draw_lane(ax: Any, rows: tuple[list[list[Span]], list[list[Span]]], top: float, scale: float,
               px_per_unit: float) -> None:
    commands, transfers = rows
    y = top
    for row in commands:
        _draw_row(ax, row, y, BAR * 0.85, scale, px_per_unit, 8)
        y += BAR
    y = top + BAR * max(len(commands), 1)
    for row in transfers:
        _draw_row(ax, row, y, TRANSFER * 0.8, scale, px_per_unit, 6.5)
        y += TRANSFER


def _draw_row(ax: Any, row: list[Span], y: float, height: float, scale: float, px_per_unit: float,
              font: float) -> None:
    for span in row:
        start, width = span.start_ns / scale, max(span.end_ns - span.start_ns, 0) / scale
        wide = width * px_per_unit > MIN_PX * 3
        # A command shorter than a pixel stays visible: MIN_PX wide, without a border.
        ax.barh(y, max(width, MIN_PX / px_per_unit), left=start, height=height, align="edge",
                color=color(span.what), edgecolor="white" if wide else "none", linewidth=0.5,
                hatch="///" if span.transfer and wide else None, zorder=2)
        label = _fitting_label(span, width * px_per_unit, font)
        if label:
            ax.text(start + width / 2, y + height / 2, label, ha="center", va="center", fontsize=font,
                    color="white" if not span.transfer else "black", zorder=3, clip_on=True)


def _fitting_label(span: Span, width_px: float, font: float) -> str:
    """The label, or a shorter form of it, that fits in ``width_px``; empty when none does."""
    for text in (span.label, span.short, f"#{span.serial}"):
        if text and len(text) * font * CHAR_PX + 4 <= width_px:
            return text
    return ""


def _unit(end_ns: int) -> tuple[float, str]:
    if end_ns < 2_000_000:
        return 1e3, "µs"
    if end_ns < 5_000_000_000:
        return 1e6, "ms"
    return 1e9, "s"


def _px_per_unit(fig: Any, ax: Any, trace: Trace, scale: float) -> float:
    end = max((s.end_ns for s in trace.spans), default=1) / scale or 1.0
    width_px = fig.get_figwidth() * fig.dpi * ax.get_position().width
    return width_px / (end * 1.05)  # matplotlib's default x margin


def _lane_label(trace: Trace, lane: str) -> str:
    if lane == HOST_LANE:
        return "host\n(accessors,\nread-backs)"
    record = next(r for r in trace.lanes if lane_name(r) == lane)
    device = record.device if len(record.device) <= 20 else record.device[:19] + "…"
    return f"{lane}\n{device}\n({'in order' if record.in_order else 'out of order'})"


def _counts(trace: Trace) -> str:
    commands = sum(1 for s in trace.spans if not s.transfer)
    transfers = sum(1 for s in trace.spans if s.transfer)
    return f"{commands} commands, {transfers} transfers on {len(trace.lane_names())} lanes"


def _legend(fig: Any, trace: Trace) -> None:
    from matplotlib.patches import Patch

    kinds = dict.fromkeys(s.what for s in trace.spans if not s.transfer)
    handles = [Patch(color=color(k), label=k) for k in kinds]
    handles += [Patch(facecolor=color(k), hatch="///", edgecolor="white", label=f"transfer {k}")
                for k in dict.fromkeys(s.what for s in trace.spans if s.transfer)]
    if handles:
        fig.legend(handles=handles, loc="lower center", ncol=min(len(handles), 8), fontsize=8, frameon=False)
