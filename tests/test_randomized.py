"""Randomized programs of command groups, checked against a plain numpy model (hypothesis).

Each example builds a small world and runs a generated program in it, every step twice: with
sycl_ocl, and on numpy arrays (the model). All that can be observed is compared with the model:
host accessor views when they open (and again after submissions that must wait for them), the
arrays ``handler.copy`` fills on the host, every buffer and sub-buffer through a final host
accessor (in half the examples; the others destroy the buffers with their work still pending),
and after destruction the written-back host arrays and ``set_final_data`` targets.

The world:

- 2-3 int32 root buffers of 64 or 96 elements with distinct contents, each of one kind: over a
  writeable host array, the same with ``use_host_ptr``, with ``set_final_data`` to another array
  (left alone when nothing wrote to the buffer), or without host memory (``buffer(range, dtype)``,
  initialized by a copy);
- 0-3 sub-buffers of the roots at offsets aligned to every device's ``mem_base_addr_align``, of
  any length, overlapping one another at will;
- queues, made once: two on PoCL device 0 of a two-device context (one in-order), one on PoCL
  device 1 of that context, and one each on devices 0 and 1 in contexts of their own; the
  Oclgrind test adds a queue on Oclgrind (another platform).

The steps (each on any queue; a window is a whole view, or a ranged accessor into one):

- kernel ``rnd_mad``: ``a[i] = (a[i] * m + c + i * s) & 0xffff`` over a window: position
  dependent and not commutative with the other steps, so any misordering shows; sometimes
  through a placeholder accessor bound with ``h.require``;
- kernel ``rnd_copy`` between windows of one length, and ``handler.copy`` accessor -> accessor
  into a destination at least as long (two accessors in one group, on one root buffer or two);
- ``handler.fill``; ``handler.copy`` accessor -> numpy array (at least as long) and numpy
  array -> accessor (up to 3 elements shorter, or longer: its first elements go); ``no_init`` on
  destinations that are written whole, at random; each copy 1-3 times in a row, each with an
  array of its own (the repeats replay, docs/scheduler.md rule S32), sometimes as
  ``queue.copy`` of a placeholder;
- a host task that reverses a window and adds a constant through ``numpy.asarray(acc)``;
- a host accessor (read or read-write) on the main thread: its view is checked, 0-3 submissions
  are made while it is held (those touching its window must wait for it), the view is checked
  again, written (read-write) and released;
- ``queue.wait()``, ``event.wait()`` or ``sycl.event.wait([...])``; any submission may
  ``depends_on`` an earlier event;
- a command graph (``sycl.ext.oneapi.experimental``): 1-4 device steps (kernels, device copies
  and fills, USM kernels, fills and copies between allocations; in half of the graphs also
  copies between windows and numpy arrays, memcpy nodes, whose arrays are checked after the
  last replay) recorded on one queue and finalized, then replayed 1-3 times with 0-2 eager
  submissions after each replay, on the same buffers (one window per memory object covers a
  replay's nodes: rule S18); a recorded graph is replayed again by later steps (also while a
  host accessor is held), on its queue or on the other queue of its context and device. PoCL
  replays native command buffers (``SYCL_OCL_GRAPH_NATIVE=1``: they are not its default; a
  graph with memcpy nodes replays prepared commands), and prepared kernels in a test of its
  own (``SYCL_OCL_GRAPH_NATIVE=0``); Oclgrind has no command buffers;
- a round of 1-3 command groups (on one queue, on the device or copies between windows and
  numpy arrays, half of the time) repeated 2-5 times (one command group repeated, a ping-pong
  or a cycle of three: the plan cache replays their plans, and the copies their shapes, from
  the third round), with 0-2
  steps after the first round that change what it planned or not: host accessors,
  submissions on any queue or context, ``set_final_data``; or, as a halo exchange, a round of
  2-4 kernels, copies between windows and numpy arrays and host accessors on one queue without
  dependencies repeated 3-5 times (the host accessors leave the layouts known, so that the
  kernels and copies after them replay too, and the bytes a write makes stale on the host are
  part of its plan: rule S17);
- ``set_final_data`` to a new array (checked after destruction if the buffer was written) or
  to nothing.

USM (where PoCL backs it): 0-2 int32 allocations of 48 or 64 elements in the two-device
context, device or shared memory, and steps on its three queues: ``rnd_mad`` through a USM
pointer, ``memcpy``/``copy`` between allocations and numpy arrays, ``fill``/``memset``,
``rnd_copy`` between a buffer window (accessor) and USM in either direction, and (shared
memory) a host task through ``numpy.asarray(p)``. USM commands are ordered by events only, so
each depends on the previous USM step's event, except on the in-order queue after a step of
its own, which orders them by itself. Every allocation is read back at the end.

Nothing waits unless the program says so: the scheduler must order everything by the data. A
copy whose source and destination overlap in memory is left out (its result is undefined). A
program that stops making progress fails with ``ProgramHung`` after ``HANG_S`` seconds instead
of hanging the suite. The budget is fixed for CI: derandomized examples, no example database.
"""

from __future__ import annotations

import functools
import os
import signal
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import sycl_ocl as sycl
from sycl_ocl.scheduler.graph import native_command_buffers

sycl.register_kernel_source(
    """
    __kernel void rnd_mad(__global int* a, int m, int c, int s) {
        int i = (int)get_global_id(0);
        a[i] = (a[i] * m + c + i * s) & 0xffff;
    }
    __kernel void rnd_copy(__global int* dst, __global const int* src) {
        size_t i = get_global_id(0);
        dst[i] = src[i];
    }
    """
)

ROOT_KINDS = ("host", "host_ptr", "final_data", "no_host")


# --- the devices and queues --------------------------------------------------------------------


def _platform_devices(name: str) -> list[sycl.device]:
    for plat in sycl.platform.get_platforms():
        if name in plat.get_info(sycl.info.platform.name):
            return list(plat.get_devices())
    return []


def _align_elements() -> int:
    """Sub-buffer offsets are multiples of this many int32 elements on every device."""
    bits = [d.get_info(sycl.info.device.mem_base_addr_align) for p in sycl.platform.get_platforms()
            for d in p.get_devices()]
    return max([32, *(b // 8 // 4 for b in bits)])


ALIGN = _align_elements()
ERRORS: list[BaseException] = []


def _collect(errors: Any) -> None:
    ERRORS.extend(errors)


def _queue(ctx: sycl.context, dev: sycl.device, in_order: bool = False) -> sycl.queue:
    props = [sycl.property.queue.in_order()] if in_order else None
    return sycl.queue(ctx, dev, async_handler=_collect, prop_list=props)


@functools.cache
def pocl_queues() -> tuple[sycl.queue, ...]:
    """Queues on PoCL: a shared two-device context (an in-order queue among them) and two
    contexts of their own."""
    devs = _platform_devices("Portable Computing Language")
    if not devs:
        return ()
    d0, d1 = devs[0], devs[1 % len(devs)]
    shared = sycl.context([d0, d1]) if d1 != d0 else sycl.context(d0)
    return (
        _queue(shared, d0),
        _queue(shared, d0, in_order=True),
        _queue(shared, d1),
        _queue(sycl.context(d0), d0),
        _queue(sycl.context(d1), d1),
    )


def _usm_kinds() -> tuple[str, ...]:
    """The USM kinds every PoCL device backs (the steps use the two-device context)."""
    devs = _platform_devices("Portable Computing Language")[:2]
    aspects = {"device": sycl.aspect.usm_device_allocations, "shared": sycl.aspect.usm_shared_allocations}
    return tuple(k for k, a in aspects.items() if devs and all(d.has(a) for d in devs))


USM_KINDS = _usm_kinds()
USM_QUEUES = 3  # pocl_queues()[:3] share one context
IN_ORDER = 1  # pocl_queues()[1] is in order


@functools.cache
def oclgrind_queue() -> sycl.queue | None:
    devs = _platform_devices("Oclgrind")
    return _queue(sycl.context(devs[0]), devs[0]) if devs else None


# --- programs ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Root:
    size: int
    kind: str


@dataclass(frozen=True)
class Sub:
    root: int
    offset: int
    length: int


@dataclass(frozen=True)
class Win:
    """Elements ``off .. off + length`` of view ``view`` (roots first, then sub-buffers);
    ``whole``: an accessor without a range."""

    view: int
    off: int
    length: int
    whole: bool = False


@dataclass(frozen=True)
class Mad:
    q: int
    win: Win
    m: int
    c: int
    s: int
    placeholder: bool
    dep: int | None


@dataclass(frozen=True)
class KernelCopy:
    q: int
    src: Win
    dst: Win
    no_init: bool
    dep: int | None


@dataclass(frozen=True)
class HandlerCopy:
    q: int
    src: Win
    dst: Win  # at least as long as src
    no_init: bool
    dep: int | None


@dataclass(frozen=True)
class Fill:
    q: int
    win: Win
    value: int
    no_init: bool
    dep: int | None


@dataclass(frozen=True)
class ToHost:
    q: int
    win: Win
    extra: int  # the array is this much longer than the window
    dep: int | None
    times: int = 1  # copies in a row, each into an array of its own (repeated: rule S32's replay)
    shortcut: bool = False  # ``queue.copy`` of a placeholder, not a command group


@dataclass(frozen=True)
class FromHost:
    q: int
    win: Win
    short: int  # the array is this much shorter than the window (negative: longer)
    seed: int
    no_init: bool
    dep: int | None
    times: int = 1  # copies in a row, each from an array of its own (repeated: rule S32's replay)
    shortcut: bool = False  # ``queue.copy`` into a placeholder, not a command group


@dataclass(frozen=True)
class HostTask:
    q: int
    win: Win
    k: int
    dep: int | None


@dataclass(frozen=True)
class Span:
    """Elements ``off .. off + length`` of USM allocation ``alloc``."""

    alloc: int
    off: int
    length: int


@dataclass(frozen=True)
class UsmMad:
    q: int
    span: Span
    m: int
    c: int
    s: int
    dep: int | None


@dataclass(frozen=True)
class UsmMove:
    """``memcpy`` (or typed ``copy``) of ``length`` elements; None: a numpy array."""

    q: int
    src: Span | None
    dst: Span | None
    typed: bool
    seed: int
    dep: int | None


@dataclass(frozen=True)
class UsmFill:
    q: int
    span: Span
    value: int
    memset: bool  # memset writes the byte ``value & 0xff`` instead
    dep: int | None


@dataclass(frozen=True)
class UsmBuffer:
    """Kernel ``rnd_copy`` between a buffer window and USM (``to_usm``: window -> USM)."""

    q: int
    win: Win
    alloc: int
    off: int
    to_usm: bool
    dep: int | None


@dataclass(frozen=True)
class UsmHostTask:
    q: int
    span: Span  # of a shared allocation
    k: int
    dep: int | None


UsmStep = UsmMad | UsmMove | UsmFill | UsmBuffer | UsmHostTask
USM_STEPS = (UsmMad, UsmMove, UsmFill, UsmBuffer, UsmHostTask)


@dataclass(frozen=True)
class Replay:
    """Replay the ``section``-th recorded graph again (nothing before the first), on the other
    queue of its context and device where there is one (``other``)."""

    section: int
    other: bool


Submission = Mad | KernelCopy | HandlerCopy | Fill | ToHost | FromHost | HostTask | UsmStep | Replay


@dataclass(frozen=True)
class GraphSection:
    """Record ``body`` on queue ``q`` into a command graph, finalize it, then for each entry of
    ``replays``: replay the graph, then submit the entry's eager submissions."""

    q: int
    body: tuple[Submission, ...]
    replays: tuple[tuple[Submission, ...], ...]


@dataclass(frozen=True)
class Repeat:
    """Submit the round ``steps`` ``times`` times (a command group repeated, or command groups
    alternating or in a cycle: the plan cache replays their plans; host accessors among them
    leave the layouts known, so that the command groups after them replay too, rule S17), with
    the steps of ``between`` after the first round: they invalidate the cached plans (host
    accessors, other queues and contexts, ``set_final_data``) or not."""

    steps: tuple[Submission | HostAccess, ...]
    times: int
    between: tuple[Any, ...]


@dataclass(frozen=True)
class FinalData:
    """``set_final_data`` on root ``root``: to a new array (``keep``) or to nothing."""

    root: int
    keep: bool


@dataclass(frozen=True)
class HostAccess:
    win: Win
    write: bool
    k: int
    held: tuple[Submission, ...]  # submitted while the host accessor is open


@dataclass(frozen=True)
class Wait:
    kind: str  # "queue", "event" or "events"
    index: int


Step = Submission | HostAccess | Wait | GraphSection | Repeat | FinalData


@dataclass(frozen=True)
class Graph:
    """A recorded, finalized graph: its queue, the model updates of its body, whether it holds
    USM commands and which roots it writes."""

    exe: Any
    q: int
    updates: list[Callable[[], None]]
    usm: bool
    writes: frozenset[int]


@dataclass(frozen=True)
class Program:
    roots: tuple[Root, ...]
    subs: tuple[Sub, ...]
    steps: tuple[Step, ...]
    final_reads: bool  # read every view with a host accessor before destroying the buffers
    usm: tuple[UsmAlloc, ...] = ()


@dataclass(frozen=True)
class UsmAlloc:
    size: int
    kind: str  # "device" or "shared"


def _window(lengths: Sequence[int]) -> st.SearchStrategy[Win]:
    @st.composite
    def draw_window(draw: st.DrawFn) -> Win:
        view = draw(st.integers(0, len(lengths) - 1))
        n = lengths[view]
        if draw(st.booleans()):
            return Win(view, 0, n, whole=True)
        off = draw(st.integers(0, n - 1))
        return Win(view, off, draw(st.integers(1, n - off)))

    return draw_window()


def _pair(lengths: Sequence[int], longer_dst: bool) -> st.SearchStrategy[tuple[Win, Win]]:
    """A source and a destination window; the destination is as long, or (``longer_dst``)
    at least as long."""

    @st.composite
    def draw_pair(draw: st.DrawFn) -> tuple[Win, Win]:
        views = st.integers(0, len(lengths) - 1)
        sv, dv = draw(views), draw(views)
        n = draw(st.integers(1, min(lengths[sv], lengths[dv])))
        room = draw(st.integers(n, lengths[dv])) if longer_dst else n
        so, do = draw(st.integers(0, lengths[sv] - n)), draw(st.integers(0, lengths[dv] - room))
        return (Win(sv, so, n, whole=n == lengths[sv] and draw(st.booleans())),
                Win(dv, do, room, whole=room == lengths[dv] and draw(st.booleans())))

    return draw_pair()


def _submissions(lengths: Sequence[int], q: st.SearchStrategy[int], dep: st.SearchStrategy[int | None],
                 host: bool = True, copies: bool | None = None) -> st.SearchStrategy[Submission]:
    """Buffer steps on the queues ``q`` draws; ``host``: host tasks and copies that run on the
    host too (a command graph holds none); ``copies`` (default: ``host``): copies between
    windows and numpy arrays (one transfer each: a command graph holds them as memcpy nodes)."""
    win = _window(lengths)
    small = st.integers(-100, 100)
    device_steps = [
        st.builds(Mad, q, win, st.sampled_from([1, -1, 2, 3]), small, st.integers(0, 5),
                  st.booleans(), dep),
        _pair(lengths, False).flatmap(
            lambda p: st.builds(KernelCopy, q, st.just(p[0]), st.just(p[1]), st.booleans(), dep)),
        # no_init leaves a longer destination's tail undefined; a graph holds device copies only,
        # between windows of one length (a longer destination is copied on the host)
        _pair(lengths, host).flatmap(
            lambda p: st.builds(HandlerCopy, q, st.just(p[0]), st.just(p[1]),
                                st.booleans() if p[0].length == p[1].length else st.just(False), dep)),
        st.builds(Fill, q, win, small, st.booleans(), dep),
    ]
    copy_steps = [
        # arrays of the window's length half of the time: those copies have shapes (rule S32)
        st.builds(ToHost, q, win, st.just(0) | st.integers(0, 3), dep, st.integers(1, 3), st.booleans()),
        st.tuples(win, st.just(0) | st.integers(-3, 3)).flatmap(lambda ws: st.builds(
            FromHost, q, st.just(ws[0]), st.just(min(ws[1], ws[0].length - 1)), st.integers(0, 1000),
            st.booleans() if min(ws[1], ws[0].length - 1) <= 0 else st.just(False), dep, st.integers(1, 3),
            st.booleans())),
    ]
    host_steps = [st.builds(HostTask, q, win, small, dep)]
    return st.one_of(*device_steps, *(copy_steps if (host if copies is None else copies) else ()),
                     *(host_steps if host else ()))


def _span(usm: Sequence[UsmAlloc], allocs: Sequence[int], length: int = 0) -> st.SearchStrategy[Span]:
    """A span of one of ``allocs``: ``length`` elements long, or any length (0)."""

    @st.composite
    def draw_span(draw: st.DrawFn) -> Span:
        a = draw(st.sampled_from([a for a in allocs if usm[a].size >= length]))
        off = draw(st.integers(0, usm[a].size - max(length, 1)))
        return Span(a, off, length or draw(st.integers(1, usm[a].size - off)))

    return draw_span()


def _usm_steps(lengths: Sequence[int], usm: Sequence[UsmAlloc], q: st.SearchStrategy[int],
               dep: st.SearchStrategy[int | None], host: bool = True) -> st.SearchStrategy[Submission]:
    """USM steps; ``host``: host tasks and copies from and to numpy arrays too."""
    every = list(range(len(usm)))
    span = _span(usm, every)
    small = st.integers(-100, 100)

    @st.composite
    def move(draw: st.DrawFn) -> UsmMove:
        src = draw(st.none() | span if host else span)  # None: a numpy array; one end at least is USM
        if src is None:
            dst = draw(span)
        else:
            dst = draw(st.none() | _span(usm, every, src.length) if host else _span(usm, every, src.length))
        return UsmMove(draw(q), src, dst, draw(st.booleans()), draw(st.integers(0, 1000)), draw(dep))

    @st.composite
    def buffer(draw: st.DrawFn) -> UsmBuffer:
        win = draw(_window(lengths))
        fits = [a for a in every if usm[a].size >= win.length]
        if not fits:
            win = Win(win.view, win.off, 1)
            fits = every
        a = draw(st.sampled_from(fits))
        return UsmBuffer(draw(q), win, a, draw(st.integers(0, usm[a].size - win.length)),
                         draw(st.booleans()), draw(dep))

    steps = [
        st.builds(UsmMad, q, span, st.sampled_from([1, -1, 2, 3]), small, st.integers(0, 5), dep),
        move(),
        st.builds(UsmFill, q, span, st.integers(-300, 300), st.booleans(), dep),
        buffer(),
    ]
    shared = [a for a in every if usm[a].kind == "shared"]
    if shared and host:
        steps.append(st.builds(UsmHostTask, q, _span(usm, shared), small, dep))
    return st.one_of(*steps)


def _graph_section(lengths: Sequence[int], n_queues: int, usm: Sequence[UsmAlloc],
                   eager: st.SearchStrategy[Submission]) -> st.SearchStrategy[GraphSection]:
    """A graph recorded on one queue (its body: device steps on that queue, without explicit
    dependencies, and in half of the graphs copies between windows and numpy arrays: memcpy
    nodes, which no command buffer holds), replayed 1-3 times, each replay followed by 0-2
    eager submissions."""

    @st.composite
    def draw_section(draw: st.DrawFn) -> GraphSection:
        q = draw(st.integers(0, n_queues - 1))
        body = _submissions(lengths, st.just(q), st.none(), host=False, copies=draw(st.booleans()))
        if usm and q < USM_QUEUES:
            body = body | _usm_steps(lengths, usm, st.just(q), st.none(), host=False)
        steps = draw(st.lists(body, min_size=1, max_size=4))
        replays = draw(st.lists(st.lists(eager, max_size=2).map(tuple), min_size=1, max_size=3))
        return GraphSection(q, tuple(steps), tuple(replays))

    return draw_section()


def _steps(lengths: Sequence[int], n_queues: int, n_roots: int, usm: Sequence[UsmAlloc] = ()
           ) -> st.SearchStrategy[Step]:
    q, dep = st.integers(0, n_queues - 1), st.none() | st.integers(0, 63)
    subs = _submissions(lengths, q, dep)
    usm_subs = _usm_steps(lengths, usm, st.integers(0, USM_QUEUES - 1), dep) if usm else subs
    replay = st.builds(Replay, st.integers(0, 7), st.booleans())
    host_access = st.builds(HostAccess, _window(lengths), st.booleans(), st.integers(1, 0xFFFF),
                            st.lists(subs | usm_subs | replay, max_size=3).map(tuple))
    wait = st.builds(Wait, st.sampled_from(["queue", "event", "events"]), st.integers(0, 63))
    final_data = st.builds(FinalData, st.integers(0, n_roots - 1), st.booleans())
    between = st.lists(host_access | subs | final_data, max_size=2).map(tuple)
    on_one_queue = q.flatmap(lambda k: st.lists(  # the rounds that replay most
        _submissions(lengths, st.just(k), dep, host=False, copies=True), min_size=1, max_size=3))
    rounds = (on_one_queue | st.lists(subs | usm_subs, min_size=1, max_size=3)).map(tuple)
    repeat = st.builds(Repeat, rounds, st.integers(2, 5), between)
    # A halo exchange: kernels, copies between windows and numpy arrays and host accessors on
    # one queue, without dependencies, from the third round on the fast paths (rules S17, S20, S32).
    checked = st.builds(HostAccess, _window(lengths), st.booleans(), st.integers(1, 0xFFFF), st.just(()))
    exchange_round = q.flatmap(lambda k: st.lists(
        _submissions(lengths, st.just(k), st.none(), host=False, copies=True) | checked,
        min_size=2, max_size=4))
    exchange = st.builds(Repeat, exchange_round.map(tuple), st.integers(3, 5), between)
    graph = _graph_section(lengths, n_queues, usm, subs | usm_subs)
    # mostly submissions
    return st.one_of(subs, subs, subs, subs, usm_subs, host_access, wait, repeat, exchange, exchange, graph,
                     replay, final_data)


def programs(n_queues: int, max_steps: int) -> st.SearchStrategy[Program]:
    @st.composite
    def draw_program(draw: st.DrawFn) -> Program:
        roots = tuple(
            Root(draw(st.sampled_from([64, 96])), draw(st.sampled_from(ROOT_KINDS)))
            for _ in range(draw(st.integers(2, 3)))
        )
        subs = []
        for _ in range(draw(st.integers(0, 3))):
            r = draw(st.integers(0, len(roots) - 1))
            size = roots[r].size
            offset = ALIGN * draw(st.integers(0, (size - 1) // ALIGN))
            subs.append(Sub(r, offset, draw(st.integers(1, size - offset))))
        lengths = [r.size for r in roots] + [s.length for s in subs]
        usm = tuple(UsmAlloc(draw(st.sampled_from([48, 64])), draw(st.sampled_from(USM_KINDS)))
                    for _ in range(draw(st.integers(0, 2)) if USM_KINDS else 0))
        steps = draw(st.lists(_steps(lengths, n_queues, len(roots), usm), min_size=4, max_size=max_steps))
        return Program(roots, tuple(subs), tuple(steps), draw(st.booleans()), usm)

    return draw_program()


# --- running a program and its model -----------------------------------------------------------


class Run:
    """One program, run by sycl_ocl and by the numpy model side by side."""

    def __init__(self, prog: Program, queues: Sequence[sycl.queue]) -> None:
        self.queues = queues
        self.events: list[sycl.event] = []
        self.checks: list[tuple[str, np.ndarray, np.ndarray]] = []  # (what, actual, expected)
        self.finals: dict[int, tuple[str, np.ndarray, np.ndarray]] = {}  # by array: a graph's copies
        self.keep: list[np.ndarray] = []  # host sources of pending copies
        self.model: list[np.ndarray] = []
        self.arrays: list[np.ndarray | None] = []  # where each root is written back
        self.bufs: list[sycl.buffer] = []
        self.where: list[tuple[int, int]] = []  # (root, base element) of each view
        self.written = [False] * len(prog.roots)  # set_final_data needs a write access (§4.7.2.3)
        self.targets = [spec.kind == "final_data" for spec in prog.roots]  # roots with set_final_data
        self.graphs: list[Graph] = []
        self.recording: set[int] | None = None  # while recording: the roots the graph writes
        for r, spec in enumerate(prog.roots):
            init = (np.arange(spec.size, dtype=np.int32) * (r + 2) + 1000 * (r + 1)).astype(np.int32)
            self.model.append(init.copy())
            if spec.kind == "no_host":
                buf = sycl.buffer(sycl.range(spec.size), np.int32)
                self.initialize(queues[0], buf, init)
                self.keep.append(init)
                self.arrays.append(None)
                self.written[r] = True  # by the copy that initializes it
            else:
                props = [sycl.property.buffer.use_host_ptr()] if spec.kind == "host_ptr" else None
                buf = sycl.buffer(init, prop_list=props)
                if spec.kind == "final_data":
                    target = np.full(spec.size, -1, dtype=np.int32)
                    buf.set_final_data(target)
                    self.arrays.append(target)
                else:
                    self.arrays.append(init)
            self.bufs.append(buf)
            self.where.append((r, 0))
        for sub in prog.subs:
            self.bufs.append(sycl.buffer(self.bufs[sub.root], sycl.id(sub.offset), sycl.range(sub.length)))
            self.where.append((sub.root, sub.offset))
        self.usm: list[sycl.usm_ptr] = []
        self.usm_model: list[np.ndarray] = []
        self.usm_last: tuple[sycl.event, int] | None = None  # the last USM step's event and queue
        for a, spec in enumerate(prog.usm):
            kind = getattr(sycl.usm.alloc, spec.kind)
            p = sycl.malloc(count=spec.size, dtype=np.int32, q=queues[0], kind=kind)
            assert p is not None
            init = (np.arange(spec.size, dtype=np.int32) * 3 - 500 * (a + 1)).astype(np.int32)
            self.usm.append(p)
            self.usm_model.append(init.copy())
            self.keep.append(init)
            self.submit(UsmMove(0, None, Span(a, 0, spec.size), False, 0, None),
                        lambda h, p=p, init=init: h.memcpy(p, init, init.nbytes))

    # --- helpers

    @staticmethod
    def initialize(q: sycl.queue, buf: sycl.buffer, init: np.ndarray) -> None:
        q.submit(lambda h: h.copy(init, sycl.accessor(buf, h, sycl.write_only)))

    def seg(self, w: Win) -> np.ndarray:
        """The model's elements of a window (a view into the model)."""
        root, base = self.where[w.view]
        return self.model[root][base + w.off: base + w.off + w.length]

    def overlap(self, a: Win, b: Win) -> bool:
        (ra, ba), (rb, bb) = self.where[a.view], self.where[b.view]
        lo_a, lo_b = ba + a.off, bb + b.off
        return ra == rb and lo_a < lo_b + b.length and lo_b < lo_a + a.length

    def acc(self, h: sycl.handler | None, w: Win, mode: Any, no_init: bool = False,
            placeholder: bool = False) -> sycl.accessor:
        """An accessor of ``w`` made with ``h``: a placeholder bound with ``h.require`` where
        ``placeholder``, or left unbound where ``h`` is None."""
        props = [sycl.property.no_init()] if no_init else None
        owner = None if placeholder else h
        if mode is not sycl.read_only:
            if self.recording is not None:
                self.recording.add(self.where[w.view][0])  # written when replayed
            else:
                self.written[self.where[w.view][0]] = True
        buf = self.bufs[w.view]
        if w.whole:
            a = sycl.accessor(buf, owner, mode, prop_list=props)
        else:
            a = sycl.accessor(buf, owner, mode, sycl.range(w.length), sycl.id(w.off), prop_list=props)
        if placeholder and h is not None:
            h.require(a)
        return a

    def host_accessor(self, w: Win, mode: Any) -> sycl.host_accessor:
        self.written[self.where[w.view][0]] |= mode is not sycl.read_only
        if w.whole:
            return sycl.host_accessor(self.bufs[w.view], mode)
        return sycl.host_accessor(self.bufs[w.view], mode, sycl.range(w.length), sycl.id(w.off))

    def submit(self, step: Submission, cgf: Callable[[sycl.handler], None]) -> None:
        deps = [self.events[step.dep % len(self.events)]] if step.dep is not None and self.events else []
        usm = isinstance(step, USM_STEPS)
        if usm and self.usm_last is not None and not (step.q == self.usm_last[1] == IN_ORDER):
            deps.append(self.usm_last[0])  # USM is ordered by events (or the in-order queue) only

        def group(h: sycl.handler) -> None:
            if deps:
                h.depends_on(deps)
            cgf(h)

        self.events.append(self.queues[step.q].submit(group))
        if usm:
            self.usm_last = (self.events[-1], step.q)

    def copy_shortcut(self, step: ToHost | FromHost, src: Any, dst: Any) -> None:
        """``queue.copy`` between a placeholder and a numpy array, after the step's dependency."""
        deps = [self.events[step.dep % len(self.events)]] if step.dep is not None and self.events else None
        self.events.append(self.queues[step.q].copy(src, dst, depends_on=deps))

    def span(self, s: Span) -> np.ndarray:
        """The model's elements of a USM span (a view into the model)."""
        return self.usm_model[s.alloc][s.off: s.off + s.length]

    def pointer(self, s: Span) -> sycl.usm_ptr:
        return self.usm[s.alloc] + s.off

    def read_usm(self) -> None:
        """Read every allocation back after the last USM step and compare with the model."""
        for a, p in enumerate(self.usm):
            out = np.zeros_like(self.usm_model[a])
            deps = [self.usm_last[0]] if self.usm_last is not None else []
            self.queues[0].memcpy(out, p, out.nbytes, depends_on=deps).wait()
            self.expect(f"USM allocation {a} at the end", out, self.usm_model[a])

    def expect(self, what: str, actual: np.ndarray, expected: np.ndarray) -> None:
        np.testing.assert_array_equal(actual, expected, err_msg=what)

    # --- steps: each submits and returns the model's update, applied in program order

    def run_submission(self, i: str, step: Submission) -> Callable[[], None]:
        if isinstance(step, USM_STEPS):
            return self.run_usm(i, step)
        if isinstance(step, Replay):
            return self.replay(step.section, step.other)
        if isinstance(step, Mad):
            self.submit(step, lambda h: h.parallel_for(
                sycl.range(step.win.length), "rnd_mad",
                self.acc(h, step.win, sycl.read_write, placeholder=step.placeholder),
                np.int32(step.m), np.int32(step.c), np.int32(step.s)))

            def mad() -> None:
                seg = self.seg(step.win)
                ramp = np.arange(seg.size, dtype=np.int64) * step.s
                seg[:] = (seg.astype(np.int64) * step.m + step.c + ramp) & 0xFFFF
            return mad
        if isinstance(step, (KernelCopy, HandlerCopy)):
            if self.overlap(step.src, step.dst):
                return lambda: None  # undefined result: skipped
            if isinstance(step, KernelCopy):
                self.submit(step, lambda h: h.parallel_for(
                    sycl.range(step.src.length), "rnd_copy",
                    self.acc(h, step.dst, sycl.write_only, no_init=step.no_init),
                    self.acc(h, step.src, sycl.read_only)))
            else:
                self.submit(step, lambda h: h.copy(
                    self.acc(h, step.src, sycl.read_only),
                    self.acc(h, step.dst, sycl.write_only, no_init=step.no_init)))

            def copy() -> None:
                self.seg(step.dst)[: step.src.length] = self.seg(step.src)
            return copy
        if isinstance(step, Fill):
            self.submit(step, lambda h: h.fill(
                self.acc(h, step.win, sycl.write_only, no_init=step.no_init), np.int32(step.value)))
            return lambda: self.seg(step.win).__setitem__(Ellipsis, step.value)
        if isinstance(step, ToHost):
            outs = [np.full(step.win.length + step.extra, -7777, dtype=np.int32) for _ in range(step.times)]
            for out in outs:
                if step.shortcut:
                    self.copy_shortcut(step, self.acc(None, step.win, sycl.read_only), out)
                else:
                    self.submit(step, lambda h, out=out: h.copy(self.acc(h, step.win, sycl.read_only), out))
            recorded = self.recording is not None

            def to_host() -> None:
                expected = np.full_like(outs[0], -7777)
                expected[: step.win.length] = self.seg(step.win)
                for out in outs:
                    check = (f"step {i}: {step}", out, expected)
                    if recorded:  # a graph's node: each replay writes the array, the last one stays
                        self.finals[id(out)] = check
                    else:
                        self.checks.append(check)
            return to_host
        if isinstance(step, FromHost):
            ramp = np.arange(step.win.length - step.short, dtype=np.int32) * 7 + step.seed
            srcs = [(ramp + 13 * t).astype(np.int32) for t in range(step.times)]  # the last one stays
            self.keep.extend(srcs)
            for src in srcs:
                if step.shortcut:
                    dst = self.acc(None, step.win, sycl.write_only, no_init=step.no_init)
                    self.copy_shortcut(step, src, dst)
                else:
                    self.submit(step, lambda h, src=src: h.copy(
                        src, self.acc(h, step.win, sycl.write_only, no_init=step.no_init)))
            n = min(srcs[-1].size, step.win.length)  # a longer array gives its first elements
            return lambda: self.seg(step.win)[:n].__setitem__(Ellipsis, srcs[-1][:n])

        def cgf(h: sycl.handler) -> None:
            a = self.acc(h, step.win, sycl.read_write)

            def task() -> None:
                view = np.asarray(a)
                view[:] = view[::-1] + step.k

            h.host_task(task)

        self.submit(step, cgf)

        def host_task() -> None:
            seg = self.seg(step.win)
            seg[:] = seg[::-1] + step.k
        return host_task

    def run_usm(self, i: str, step: UsmStep) -> Callable[[], None]:
        if isinstance(step, UsmMad):
            self.submit(step, lambda h: h.parallel_for(
                step.span.length, "rnd_mad", self.pointer(step.span),
                np.int32(step.m), np.int32(step.c), np.int32(step.s)))

            def mad() -> None:
                seg = self.span(step.span)
                ramp = np.arange(seg.size, dtype=np.int64) * step.s
                seg[:] = (seg.astype(np.int64) * step.m + step.c + ramp) & 0xFFFF
            return mad
        if isinstance(step, UsmMove):
            return self.usm_move(i, step)
        if isinstance(step, UsmFill):
            p, n = self.pointer(step.span), step.span.length
            if step.memset:
                self.submit(step, lambda h: h.memset(p, step.value, n * 4))
                value = np.full(4, step.value & 0xFF, dtype=np.uint8).view(np.int32)[0]
            else:
                self.submit(step, lambda h: h.fill(p, np.int32(step.value), n))
                value = np.int32(step.value)
            return lambda: self.span(step.span).__setitem__(Ellipsis, value)
        if isinstance(step, UsmBuffer):
            span = Span(step.alloc, step.off, step.win.length)
            if step.to_usm:
                self.submit(step, lambda h: h.parallel_for(
                    span.length, "rnd_copy", self.pointer(span), self.acc(h, step.win, sycl.read_only)))
                return lambda: self.span(span).__setitem__(Ellipsis, self.seg(step.win))
            self.submit(step, lambda h: h.parallel_for(
                span.length, "rnd_copy", self.acc(h, step.win, sycl.write_only), self.pointer(span)))
            return lambda: self.seg(step.win).__setitem__(Ellipsis, self.span(span))

        def task() -> None:
            view = np.asarray(self.pointer(step.span))[: step.span.length]
            view[:] = view[::-1] + step.k

        self.submit(step, lambda h: h.host_task(task))

        def host_task() -> None:
            seg = self.span(step.span)
            seg[:] = seg[::-1] + step.k
        return host_task

    def usm_move(self, i: str, step: UsmMove) -> Callable[[], None]:
        src, dst = step.src, step.dst
        n = src.length if src is not None else dst.length  # type: ignore[union-attr]
        if src is not None and dst is not None and src.alloc == dst.alloc and \
                src.off < dst.off + n and dst.off < src.off + n:
            return lambda: None  # overlapping: undefined result, skipped
        host = (np.arange(n, dtype=np.int32) * 5 + step.seed).astype(np.int32)
        if src is None:
            self.keep.append(host)
        else:
            host[:] = -7777
        src_end = host if src is None else self.pointer(src)
        dst_end = host if dst is None else self.pointer(dst)
        if step.typed:
            self.submit(step, lambda h: h.copy(src_end, dst_end, n))
        else:
            self.submit(step, lambda h: h.memcpy(dst_end, src_end, n * 4))

        def move() -> None:
            values = host.copy() if src is None else self.span(src).copy()
            if dst is None:
                self.checks.append((f"step {i}: {step}", host, values))
            else:
                self.span(dst)[:] = values
        return move

    # --- command graphs, repeated command groups, set_final_data

    def record(self, i: int, section: GraphSection) -> None:
        """Record the section's body into a graph (nothing runs), finalize it, then replay it
        with the eager submissions after each replay."""
        q = self.queues[section.q]
        graph = sycl.ext.oneapi.experimental.command_graph(q)
        eager_events, eager_usm = self.events, self.usm_last
        self.events, self.usm_last, self.recording = [], None, set()  # recorded events stay inside
        graph.begin_recording(q)
        try:
            updates = [self.run_submission(f"{i}.g{j}", s) for j, s in enumerate(section.body)]
            writes = self.recording
        finally:
            graph.end_recording()
            self.events, self.usm_last, self.recording = eager_events, eager_usm, None
        usm = any(isinstance(s, USM_STEPS) for s in section.body)
        self.graphs.append(Graph(graph.finalize(), section.q, updates, usm, frozenset(writes)))
        for j, eager in enumerate(section.replays):
            self.replay(len(self.graphs) - 1, False)()
            for k, sub in enumerate(eager):
                self.run_submission(f"{i}.r{j}.{k}", sub)()

    def replay(self, index: int, other: bool) -> Callable[[], None]:
        """Replay a recorded graph (on the other queue of its context and device, if asked and
        there is one); returns the model's update: its body's, in order."""
        if not self.graphs:
            return lambda: None
        graph = self.graphs[index % len(self.graphs)]
        q = {0: 1, 1: 0}.get(graph.q, graph.q) if other else graph.q
        deps = []
        if graph.usm and self.usm_last is not None and not (q == self.usm_last[1] == IN_ORDER):
            deps.append(self.usm_last[0])  # its USM nodes follow the USM steps before it
        self.events.append(self.queues[q].ext_oneapi_graph(graph.exe, depends_on=deps))
        if graph.usm:
            self.usm_last = (self.events[-1], q)
        for root in graph.writes:
            self.written[root] = True

        def apply() -> None:
            for update in graph.updates:
                update()
        return apply

    def repeat(self, i: int, step: Repeat) -> None:
        for k in range(step.times):
            for s, sub in enumerate(step.steps):
                if isinstance(sub, HostAccess):
                    self.run_step(f"{i}.{k}.{s}", sub)
                else:
                    self.run_submission(f"{i}.{k}.{s}", sub)()
            if k == 0:
                for j, between in enumerate(step.between):
                    self.run_step(f"{i}.b{j}", between)  # type: ignore[arg-type]

    def final_data(self, step: FinalData) -> None:
        if step.keep:
            target = np.full_like(self.model[step.root], -1)
            self.bufs[step.root].set_final_data(target)
        else:
            target = None
            self.bufs[step.root].set_final_data(None)
        self.arrays[step.root], self.targets[step.root] = target, step.keep

    def run_step(self, i: int | str, step: Step) -> None:
        if isinstance(step, GraphSection):
            self.record(i, step)  # type: ignore[arg-type]
        elif isinstance(step, Repeat):
            self.repeat(i, step)  # type: ignore[arg-type]
        elif isinstance(step, FinalData):
            self.final_data(step)
        elif isinstance(step, HostAccess):
            mode = sycl.read_write if step.write else sycl.read_only
            with self.host_accessor(step.win, mode) as ha:
                view = np.asarray(ha)
                self.expect(f"step {i}: host accessor {step}", view, self.seg(step.win))
                updates = [self.run_submission(f"{i}.{j}", s) for j, s in enumerate(step.held)]
                self.expect(f"step {i}: host accessor after submitting {step.held}", view, self.seg(step.win))
                if step.write:
                    view ^= np.int32(step.k)
                    self.seg(step.win)[:] ^= np.int32(step.k)
            for update in updates:
                update()
        elif isinstance(step, Wait):
            if step.kind == "queue":
                self.queues[step.index % len(self.queues)].wait()
            elif self.events and step.kind == "event":
                self.events[step.index % len(self.events)].wait()
            elif self.events:
                sycl.event.wait(self.events[-1 - step.index % 4:])
        else:
            self.run_submission(str(i), step)()


HANG_S = 30.0  # an example takes well under a second


class ProgramHung(BaseException):
    """A program stopped making progress. Not an ``Exception``: hypothesis reports it at once
    instead of shrinking, where every attempt would hang again."""


@contextmanager
def watchdog(prog: Program) -> Iterator[None]:
    """Interrupt the main thread with ``ProgramHung`` every ``HANG_S`` seconds until the block
    ends (a blocked wait wakes up for the signal), so a scheduler hang fails the test."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    done = threading.Event()
    main = threading.get_ident()

    def on_signal(signum: int, frame: Any) -> None:
        raise ProgramHung(f"no progress for {HANG_S} s running {prog!r}")

    def watch() -> None:
        while not done.wait(HANG_S):
            signal.pthread_kill(main, signal.SIGUSR1)

    previous = signal.signal(signal.SIGUSR1, on_signal)
    thread = threading.Thread(target=watch, name="test_randomized-watchdog", daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()
        signal.signal(signal.SIGUSR1, previous)


def destroy(bufs: Sequence[sycl.buffer]) -> None:
    """Destroy the buffers (sub-buffers first), which waits for their work and writes back.
    After a hang, the rest are abandoned: destroying them would wait for the hung work."""
    for i, buf in enumerate(reversed(bufs)):
        try:
            buf.__exit__(None, None, None)
        except ProgramHung:
            for rest in bufs[: len(bufs) - i]:
                rest._alive = False  # never destroyed, so garbage collection cannot hang either
            raise


def run_program(prog: Program, queues: Sequence[sycl.queue]) -> None:
    ERRORS.clear()
    with watchdog(prog):
        run = Run(prog, queues)
        try:
            for i, step in enumerate(prog.steps):
                run.run_step(i, step)
            for v in range(len(run.bufs) if prog.final_reads else 0):  # before destruction
                whole = Win(v, 0, run.bufs[v].size(), whole=True)
                with run.host_accessor(whole, sycl.read_only) as ha:
                    run.expect(f"final host accessor on view {v}", np.asarray(ha), run.seg(whole))
        finally:
            destroy(run.bufs)
        # the buffers are destroyed: their work is done and the host arrays written back
        try:
            run.read_usm()
        finally:
            for p in run.usm:
                sycl.free(p, queues[0])
        for q in queues:
            q.wait_and_throw()  # delivers asynchronous errors to the handler
    for r, array in enumerate(run.arrays):
        if array is None:
            continue  # no host memory: seen through host accessors and copies only
        if run.targets[r] and not run.written[r]:
            untouched = np.full_like(run.model[r], -1)
            run.expect(f"root {r} (set_final_data, never written) after destruction", array, untouched)
        else:
            run.expect(f"root {r} ({prog.roots[r].kind}) after destruction", array, run.model[r])
    for what, actual, expected in [*run.checks, *run.finals.values()]:
        run.expect(what, actual, expected)
    assert not ERRORS, f"asynchronous errors: {ERRORS}"


# --- the tests ---------------------------------------------------------------------------------

SETTINGS: dict[str, Any] = {
    "deadline": None,
    "derandomize": "FUZZ_SECONDS" not in os.environ,  # `make fuzz`: a new seed each round
    "database": None,
    "phases": [Phase.explicit, Phase.generate, Phase.shrink],  # no explain phase: it reruns a lot
    "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large],
}
N_POCL = 5


@settings(max_examples=300, **SETTINGS)
@given(prog=programs(N_POCL, max_steps=24))
def test_random_programs_on_pocl(prog: Program) -> None:
    _run_on_pocl(prog, native=True)


@settings(max_examples=100, **SETTINGS)
@given(prog=programs(N_POCL, max_steps=16))
def test_random_programs_on_pocl_without_command_buffers(prog: Program) -> None:
    _run_on_pocl(prog, native=False)


def _run_on_pocl(prog: Program, native: bool) -> None:
    """Run ``prog`` on PoCL's queues, graphs replaying as native command buffers or not."""
    queues = pocl_queues()
    if not queues:
        pytest.skip("needs PoCL")
    with native_command_buffers(native):
        run_program(prog, queues)


@settings(max_examples=100, **SETTINGS)
@given(prog=programs(N_POCL + 1, max_steps=12))
def test_random_programs_with_oclgrind(prog: Program) -> None:
    grind = oclgrind_queue()
    queues = pocl_queues()
    if grind is None or not queues:
        pytest.skip("needs PoCL and Oclgrind (two platforms)")
    run_program(prog, (*queues, grind))
