"""Host accessors as DAG holds (§4.7.4, §3.8.1 Table 6; docs/scheduler.md rule S4).

Constructing one plans a host op that reads (or writes) the window on the host, waits for
the conflicting commands, reads back the missing bytes, and stays incomplete until released:
every later command that touches the buffer depends on it and waits in the DAG (deferred,
never behind a user event), while submit keeps returning at once.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping, Sequence

from .._async_errors import log
from .._exception import errc, exception
from .._process import STATE as PROCESS
from .._process import forked_error
from .coherence import access_on_host, restore
from .command import Command
from .hostops import prepare, start, transfer_op
from .memory_object import MemoryObject, Snapshot
from .op import DONE, Op
from .progress import drain
from .refusal import UNDO, snapshot, undo
from .requirement import HOST_READ, WRITE, Requirement
from .runtime import RUNTIME, to_the_end
from .trace import describe

# The open holds: the thread that made each, its accessor's name (rule S22) and its memory.
_owners: dict[Op, tuple[int, object, MemoryObject]] = {}
WAIT_WARNING_S = 3.0  # a wait for another thread's host accessor warns after this long


def acquire(req: Requirement, name: object) -> Op:
    """Plan and wait for a host hold on ``req`` for the accessor ``name`` (its ``str``, made
    only for a message); returns the hold to release. ``errc.invalid`` where it would wait for
    a hold of this thread (rule S25).

    Interrupted anywhere (a KeyboardInterrupt), it leaves no hold behind: each ``with RUNTIME``
    is one line (CPython reports the line of a ``with`` again before its exit, where an
    interrupt would skip the release) and the planning undoes itself (rule S26).
    """
    if PROCESS.forked:
        raise forked_error(f"constructing {name}")
    op = None
    try:
        with RUNTIME: op = _plan(req, name)  # noqa: E701  # one line: see above
        prepare(op)
        return op  # in the try: interrupted here, the hold is released too
    except BaseException:
        if op is not None:  # interrupted before its read-back: the host copy is not current
            try:
                to_the_end(_give_up, req.memory, op)
            except KeyboardInterrupt:  # a second one, landed as it began (CPython looks there)
                to_the_end(_give_up, req.memory, op)
        raise


def _plan(req: Requirement, name: object) -> Op:
    stagers: list[Op] = []
    op = transfer_op()
    saved = [(req.memory, snapshot(req.memory))]
    try:
        access_on_host(req, WRITE if req.writes else HOST_READ, op, stagers)
        if _owners:  # another hold is open: it may be this thread's (the message made only then)
            _refuse_self_wait(op.deps, f"constructing {name}", None)
        req.memory.holds.add(op)
        _owners[op] = (threading.get_ident(), name, req.memory)
        UNDO[op] = saved  # undone if its read-back fails (rule S25)
        for stager in stagers:
            start(stager, saved)
        return op
    except BaseException:
        try:
            to_the_end(_unplan, req.memory, op, saved)
        except KeyboardInterrupt:  # a second one, landed as it began (CPython looks there)
            to_the_end(_unplan, req.memory, op, saved)
        raise


def _unplan(memory: MemoryObject, op: Op, saved: list[tuple[MemoryObject, Snapshot]]) -> None:
    restore(saved)
    _end_hold(memory, op)


def _give_up(memory: MemoryObject, op: Op) -> None:
    """A hold whose read-back failed or was interrupted: undone and released (safe to run
    again: an ended hold's release changes nothing)."""
    with RUNTIME: undo(op)  # noqa: E701  # one line (rule S26)
    release(memory, op)


def release(memory: MemoryObject, op: Op, exposed: bool = False) -> None:
    """End the hold and issue what waited for it; ``exposed``: a writable view of the host copy
    outlives the accessor, whose memory is then the buffer's no more (rule S30). Again on an
    ended hold, nothing changes. Interrupted before the hold ended, it ends nothing (the caller
    keeps the hold, to release later); after, the progress thread issues what waited (rule S26).
    In a child made by fork(), the hold is the parent's: nothing is done."""
    if PROCESS.forked:
        return
    try:
        with RUNTIME: _end_hold(memory, op, exposed)  # noqa: E701  # one line, as in acquire
        if RUNTIME.held():
            RUNTIME.kick()  # a finalizer inside the scheduler: let the progress thread issue
        else:
            drain()
    except BaseException:
        RUNTIME.kick()
        raise


def _end_hold(memory: MemoryObject, op: Op, exposed: bool = False) -> None:
    op.finish()
    memory.holds.discard(op)
    _owners.pop(op, None)
    if exposed or memory.exposed:
        memory.exposed = True
        memory.disown_host_copy()
        if memory.exposed:
            memory.layout = None  # planned in full, which disowns it, until it is (rule S30)


def end_all_at_exit() -> None:
    """At interpreter exit, before it waits for the work in flight: end the host accessors
    still open, as C++ destroys them when the program ends, so that the work behind them runs
    instead of stalling the exit (docs/scheduler.md rule S14). No user thread can release one
    any more: the exit has joined them."""
    with RUNTIME:
        held = [(memory, op) for op, (_, _, memory) in _owners.items()]
    for memory, op in held:
        release(memory, op)


RUNTIME.exit_first.append(end_all_at_exit)


def check_wait(waited: Sequence[Command], what: str) -> threading.Timer | None:
    """``errc.invalid`` where ``what`` (a wait of this thread) would wait for a command that
    waits, directly or through others, for a host accessor this thread holds open: the access
    ends only when this thread goes on, so the wait would never end (rule S22).

    While another thread holds a host accessor open, whether it ever lets go cannot be known:
    the returned timer (None while none is open), which the caller cancels when the wait
    ends, warns after ``WAIT_WARNING_S`` where the wait still needs one."""
    if not _owners:
        return None
    with RUNTIME:
        _refuse_self_wait(waited, what, None)
        waited = list(waited)
    timer = threading.Timer(WAIT_WARNING_S, _warn_if_held, (waited, what))
    timer.daemon = True
    timer.start()
    return timer


def _warn_if_held(waited: list[Command], what: str) -> None:
    with RUNTIME:
        held = {op: f"{name} (held by thread {thread})" for op, (thread, name, _) in _owners.items()}
        found = _needing(waited, held)
    if found is not None:
        command, name = found
        log.warning(
            "sycl_ocl: %s has waited %.0f s for %s, which needs %s: it ends only when that thread "
            "releases the host accessor", what, WAIT_WARNING_S, command, name,
        )


def check_destruction(memory: MemoryObject, waited: Iterable[Command]) -> None:
    """``check_wait`` for the destruction of ``memory`` waiting for ``waited``: its own host
    accessors do not count, the destruction ends them first (rule S13)."""
    if _owners:
        with RUNTIME:
            _refuse_self_wait(waited, "the buffer's destruction", None, memory.holds)


def _refuse_self_wait(waited: Iterable[Command], what: str, undo: Callable[[], None] | None,
                      ended: set[Op] | frozenset[Op] = frozenset()) -> None:
    """``check_wait`` under the lock, but for the holds ``ended``; ``undo()`` first where it
    raises."""
    me = threading.get_ident()
    mine = {op: name for op, (thread, name, _) in _owners.items() if thread == me and op not in ended}
    found = _needing(waited, mine) if mine else None
    if found is None:
        return
    if undo is not None:
        undo()
    command, name = found
    raise exception(
        errc.invalid,
        f"{what} waits for {command}, which needs {name} that this thread holds open: the wait "
        "would never end; release the host accessor (end its with block) first",
    )


def _needing(waited: Iterable[Command], mine: Mapping[Op, object]) -> tuple[str, object] | None:
    """The first of ``waited`` that needs one of the holds ``mine``, described, and the name
    of that hold; None when none does (under the lock)."""
    for top in waited:
        todo, seen = [top], set()
        while todo:
            cmd = todo.pop()
            if type(cmd) is not Op or cmd.state == DONE or cmd in seen:
                continue
            seen.add(cmd)
            name = mine.get(cmd)
            if name is not None:
                return _command(top), name
            todo += cmd.deps
    return None


def _command(cmd: Command) -> str:
    """``cmd`` in an error: its kind and name (``trace.describe``)."""
    if type(cmd) is not Op or cmd.work is None:
        return "a command"
    what, name, _ = describe(cmd.work, cmd.lane is not None)
    return f"the {what} {name!r}" if name else f"a {what}"
