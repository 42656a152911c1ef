"""Buffer destruction (§4.7.2.3; docs/scheduler.md rule S13): wait, then write back when the
spec says so.

Finalizers can run while this thread holds the scheduler lock (garbage collection during a
submit) or on a scheduler thread; then a destruction that may block runs on a thread of its
own. A garbage collection runs finalizers at any point of the thread that triggered it, even
inside a lock of the standard library (an Event's condition) that the destruction's own work
takes: during a collection, finalizers only queue their work, lock-free, and the collection's
end runs it on the collecting thread, before the collection returns, where that thread is at a
safe point; elsewhere the progress thread runs it, writing nothing into the host memory
(rules S19, S21).
"""

from __future__ import annotations

import gc
import sys
import threading
import weakref
from collections.abc import Callable
from functools import partial
from types import FrameType
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import _async_errors
from .._async_errors import log
from .._exception import exception
from .._native import cl, translate
from .._process import STATE as PROCESS
from .._process import forked_error
from . import holds
from .coherence import access, restore
from .hostops import prepare, transfer_op
from .latch import Latch
from .memory_object import Allocation, MemoryObject
from .op import ENDING, Op
from .progress import run_logged, spawn
from .refusal import UNDO, snapshot, undo
from .requirement import READ, Requirement
from .runtime import RUNTIME

if TYPE_CHECKING:
    from .._async_errors import AsyncErrors
    from .lane import Lane

# .running: a garbage collection runs on this thread; .queued: the finalizers' work it queued.
_collection = threading.local()
_detached = threading.local()  # .why: the progress thread ends a buffer without its write-back
# Modules whose frames may hold a lock that a destruction takes: the standard library's
# threading (an Event's or a Condition's lock, rule S19), the scheduler (its locks) and the
# error stores (a failed command reports there); but for the frames at the bottom of every
# thread, which hold none.
_UNSAFE_MODULES = ("threading", __package__, _async_errors.__name__)
_THREAD_BOTTOM = frozenset({"_bootstrap", "_bootstrap_inner", "run"})


def _note_collection(phase: str, info: dict[str, int]) -> None:
    """The collector's callback (rules S19, S21). It is registered twice: a KeyboardInterrupt
    in one run (the collector prints and drops it) leaves the other to do the same work, which
    finds what the first did not do; work the first had taken and not run dies with its
    frame, and the objects it would have ended with it, which the progress thread then ends
    (``add_handle``, ``Runtime.watch``; rule S26)."""
    if phase == "start":
        _collection.running = True
        return
    _collection.running = False
    if getattr(_collection, "queued", None):
        _finish()
    if RUNTIME.finalizers:
        RUNTIME.kick()  # handed to the progress thread by a run interrupted before its kick


gc.callbacks += [_note_collection, _note_collection]


def may_call_user() -> bool:
    """Whether a finalizer running now may call the user's code (an async handler): on a
    user's thread, outside a garbage collection and the scheduler's lock (rule S19)."""
    return not getattr(_collection, "running", False) and not RUNTIME.held() and not RUNTIME.on_own_thread()


def finalize(work: Callable[[], Any], what: str) -> None:
    """Run a finalizer's ``work`` now, or, during a garbage collection, when the collection
    ends (``what`` names it in the log if it fails; rules S19, S21)."""
    if getattr(_collection, "running", False):
        queued = getattr(_collection, "queued", None)
        if queued is None:
            queued = _collection.queued = []
        queued.append((work, what))  # lock-free: nothing waits inside a collection
        return
    lane = getattr(ENDING, "lane", None)  # a command's completion ends it: errors go to its queue
    run_logged(work, what, None if lane is None else lane.async_errors)


def _finish() -> None:
    """At the end of a collection, run the work its finalizers queued on this thread, before
    the collection returns, when nothing here can hold a lock the work takes; otherwise on
    the progress thread, detached: it ends the buffers without writing into host memory
    (rule S21). Once the interpreter finalizes, its daemon threads are frozen, maybe holding
    the scheduler lock: the program has ended, and the work is dropped. The work is taken
    once that is decided (an interrupt before leaves it for the callback's second run)."""
    if sys.is_finalizing():
        return
    here = RUNTIME.thread is None or _at_safe_point()
    queued, _collection.queued = _collection.queued, []
    if here:
        for work, what in queued:
            run_logged(work, what)
        return
    for work, what in queued:
        RUNTIME.finalizers.append((partial(_run_detached, work, _INSIDE_THE_RUNTIME), what))
    RUNTIME.kick()


def _at_safe_point() -> bool:
    """Whether the collecting thread is a user's thread holding no scheduler lock and running
    no code (the scheduler's, ``threading``'s) that may hold a lock a destruction takes."""
    if RUNTIME.held() or RUNTIME.on_own_thread():
        return False
    frame: FrameType | None = sys._getframe(1)
    while frame is not None and frame.f_globals is globals():
        frame = frame.f_back  # this module's frames: the collection's end, not what it interrupted
    while frame is not None:
        module = frame.f_globals.get("__name__", "")
        if module.startswith(_UNSAFE_MODULES) and not (
            module == "threading" and frame.f_code.co_name in _THREAD_BOTTOM
        ):
            return False
        frame = frame.f_back
    return True


def _run_detached(work: Callable[[], Any], why: str) -> None:
    """Run ``work``, ending buffers without a write-back (``why`` says why, in a warning)."""
    _detached.why = why
    try:
        work()
    finally:
        _detached.why = None


# The arrays that buffers own, by id (``own``): each with a writeable view of it, made before
# it became read-only, and how many buffers own it; read-only until the last of them ends,
# which removes it (the memory objects keep it alive meanwhile, so its id stays its own).
_owned_arrays: dict[int, tuple[np.ndarray, np.ndarray, int]] = {}


def own(memory: MemoryObject, array: np.ndarray) -> None:
    """Make the user's ``array`` read-only while ``memory`` owns it (with any other buffer
    over it): a write to it would race with the runtime's copies (docs/data-movement.md). The
    destruction gives it back."""
    _, alias, owners = _owned_arrays.get(id(array), (array, array.view(), 0))
    _owned_arrays[id(array)] = (array, alias, owners + 1)
    array.flags.writeable = False
    memory.locked = array


def writeable_alias(data: Any) -> Any:
    """``data``, or where it is an array a live buffer owns (read-only meanwhile), a writeable
    view of it: another buffer over it shares the ownership."""
    found = _owned_arrays.get(id(data)) if isinstance(data, np.ndarray) else None
    return found[1] if found is not None and found[0] is data else data


def _give_back(memory: MemoryObject) -> None:
    """Make the owned array writeable again (it was when the buffer took it) once no buffer
    owns it. Each change is one statement: interrupted, it gave back or it did not (rule S26)."""
    array = memory.locked
    if array is None:
        return
    _, alias, owners = _owned_arrays[id(array)]
    if owners > 1:
        _owned_arrays[id(array)], memory.locked = (array, alias, owners - 1), None
    else:
        array.flags.writeable, memory.locked, _ = True, None, _owned_arrays.pop(id(array))


# What interrupted finalizers leave (rule S26): the progress thread ends it (``Runtime.watch``).
watch, unwatch = RUNTIME.watch, RUNTIME.unwatch


def add_handle(memory: MemoryObject) -> Any:
    """Count one more user handle (a buffer, a view, a sub-buffer) of ``memory``; returns its
    token, for the handle to keep and to pass to ``end_handle``. Should the handle die unended
    (its finalizer interrupted before it began), the token dies with it and the progress thread
    ends the handle (``_end_orphan``, rule S26). The token is an object the collector does not
    track (an empty numpy array): it clears the weak references of the objects it collects
    before their finalizers run, which may keep them (a finalizer queues its work: rule S19),
    but never this one's, which dies only with the handle."""
    if PROCESS.forked:
        raise forked_error("making a buffer")
    with RUNTIME: memory.handles += 1  # noqa: E701  # one line (rule S26)
    token = np.empty(0, np.uint8)
    watch(token, partial(_end_orphan, memory))
    return token


def end_handle(memory: MemoryObject, token: Any, mark_ended: Callable[[], None]) -> None:
    """End the user handle of ``token`` (``add_handle``) of ``memory``: ``mark_ended()`` marks
    the handle itself, with the count, in one line under the lock; after the last, destroy
    ``memory``. Interrupted (a KeyboardInterrupt) once the last handle ended, the destruction
    runs again to its end before the interrupt goes on, so that the statement that ended the
    buffer writes it back (rules S21, S26); interrupted before, the handle stays alive and its
    next end ends it. In a child made by fork() nothing is done: the buffer, its commands and
    its write-back are the parent's."""
    if PROCESS.forked:
        return
    last = False
    try:
        with RUNTIME: last = _end(memory, token, mark_ended)  # noqa: E701  # one line (rule S26)
        if last:
            destroy(memory)
    except KeyboardInterrupt:
        if last:
            destroy(memory)  # each step is done, or undone where interrupted: a second run finishes
        raise


def _end(memory: MemoryObject, token: Any, mark_ended: Callable[[], None]) -> bool:
    unwatch(token)  # first: interrupted after it, the handle is alive and its finalizer ends it
    mark_ended(); memory.handles -= 1; return memory.handles == 0  # noqa: E702  # one line (rule S26)


_INTERRUPTED = "its finalizer was interrupted (a KeyboardInterrupt) before it began"


def _end_orphan(memory: MemoryObject) -> None:
    """End the handle of a buffer whose finalizer was interrupted before it began (on the
    progress thread, after the statement that dropped it returned): the last ends the buffer
    without a write-back (rule S21)."""
    with RUNTIME: last = _drop_handle(memory)  # noqa: E701  # one line (rule S26)
    if last:
        _run_detached(partial(destroy, memory), _INTERRUPTED)


def _drop_handle(memory: MemoryObject) -> bool:
    memory.handles -= 1
    return memory.handles == 0


def destroy(memory: MemoryObject) -> None:
    """Run the destruction semantics of the memory object's last user handle.

    On a thread of the scheduler (a host op's, the progress thread) or inside it, blocking
    could wait for that very thread: a destruction that may block then runs on a thread of
    its own. A destruction that a garbage collection could not run before it returned writes
    nothing into the host memory (rule S21).
    """
    why = getattr(_detached, "why", None)
    if why is not None:
        _forgo_write_back(memory, why)
    else:
        try:
            check_destruction(memory)
        except exception as error:  # a finalizer's: it cannot raise, nor wait here
            _forgo_write_back(memory, str(error))
            _destroy_elsewhere(memory)
            return
    if (RUNTIME.held() or RUNTIME.on_own_thread()) and _may_block(memory):
        _destroy_elsewhere(memory)
        return
    _guarded_run(memory)


def _destroy_elsewhere(memory: MemoryObject) -> None:
    """Run the destruction on a thread of its own; where a command's completion ended the
    buffer (rule S29), its lane's ``wait_all`` waits for it."""
    lane = getattr(ENDING, "lane", None)
    flag, errors = (None, None) if lane is None else (lane.ending_begins(), lane.async_errors)
    work = partial(_guarded_run, memory)
    spawn(_run_flagged, (work, flag, errors), "sycl_ocl-destroy", partial(_not_run, work, lane, flag))


def _run_flagged(work: Callable[[], Any], flag: Latch | None, errors: AsyncErrors | None) -> None:
    try:
        run_logged(work, "buffer destruction", errors)
    finally:
        if flag is not None:
            flag.set()


def _not_run(work: Callable[[], Any], lane: Lane | None, flag: Latch | None, error: BaseException) -> None:
    """No thread could be started for ``work``: a command's completion ended the buffer, so
    the ``queue.wait()`` of its queue (or the exit's wait) runs it, losing nothing (rule S29);
    otherwise it is logged."""
    if lane is None:
        log.error("sycl_ocl: no thread could destroy a buffer: %s", error)
        return
    lane.defer(partial(run_logged, work, "buffer destruction", lane.async_errors))
    if flag is not None:
        flag.set()  # after ``defer`` raised its own: ``wait_ending`` always finds one of them


def check_destruction(memory: MemoryObject) -> None:
    """``errc.invalid`` where destroying ``memory`` now would wait for a command that needs a
    host accessor this thread holds open (rule S22)."""
    holds.check_destruction(memory, _frontier_ops(memory))


_INSIDE_THE_RUNTIME = (
    "it was ended by a garbage collection inside the runtime (on one of its threads or under its "
    "lock), where it could not be written back before the collection returned"
)


def _forgo_write_back(memory: MemoryObject, why: str) -> None:
    """Write nothing back at this destruction (``why``: it cannot happen before the statement
    that ended the buffer returns, and later it would land in the user's memory at a random
    time); a warning says so."""
    if _write_back_target(memory) is not None:
        log.warning(
            "sycl_ocl: a buffer of %d bytes is not written back: %s. Its host memory keeps what it "
            "held. End buffers with a with block, outside reference cycles and host accessors' "
            "with blocks", memory.size, why,
        )
    with RUNTIME: memory.write_back = False  # noqa: E701  # one line (rule S26)


def _may_block(memory: MemoryObject) -> bool:
    if not memory.blocking:
        return False
    return not all(op.poll() for op in _frontier_ops(memory)) or _write_back_target(memory) is not None


def _frontier_ops(memory: MemoryObject) -> list[Op]:
    """The commands the destruction waits for: the last accesses of the memory object."""
    with RUNTIME: return [entry[0] for entry in memory.frontier]  # noqa: E701  # one line (rule S26)


def _guarded_run(memory: MemoryObject) -> None:
    try:
        _destroy(memory)
    finally:
        _give_back(memory)
        if memory.mutex is not None:
            memory.mutex.release()
            memory.mutex = None


def _destroy(memory: MemoryObject) -> None:
    with RUNTIME: unreleased = list(memory.holds)  # noqa: E701  # one line (rule S26)
    # Host accessors still open here belong to garbage or outlive a ``with`` block of the
    # buffer: waiting for them would never end, so their access ends now.
    for hold in unreleased:
        holds.release(memory, hold)
    if not memory.blocking:
        return
    accesses = _frontier_ops(memory)
    target = _write_back_target(memory)
    if target is not None:
        _write_back(memory, target)  # waits for the writers the bytes come from
    if memory.adopted is not None:
        _give_back_to_native(memory, memory.adopted)
    for op in accesses:
        op.wait()


def _read_all(memory: MemoryObject, what: str) -> None:
    """Bring every current byte of the memory object into its host copy (after its writers)."""
    op = None
    try:
        with RUNTIME: op = _plan_read_all(memory, what)  # noqa: E701  # one line (rule S26)
        prepare(op); op.finish()  # noqa: E702  # one line: interrupted, the op is undone below
    except BaseException:
        if op is not None:  # not read back (prepare undoes a failed read): not current (rule S26)
            with RUNTIME: undo(op)  # noqa: E701  # one line (rule S26)
            op.finish()
        raise


def _plan_read_all(memory: MemoryObject, what: str) -> Op:
    """``_read_all``'s host op, planned (under the lock); undone by ``undo`` until read."""
    op = transfer_op(what=what)
    saved = [(memory, snapshot(memory))]
    try:
        access(Requirement(memory, 0, memory.size, False, True, 0, memory.size), READ, None, op, [])
        UNDO[op] = saved
        return op  # in the try: interrupted here, the planning is undone too
    except BaseException:
        restore(saved)
        op.finish()
        raise


def _write_back(memory: MemoryObject, target: Any) -> None:
    """Read the memory object's bytes back and copy them to ``target``."""
    _read_all(memory, "write-back")
    if memory.exposed:  # its host commands had not ended when it was planned (rule S30)
        with RUNTIME: memory.disown_host_copy()  # noqa: E701  # one line (rule S26)
    if not (isinstance(target, np.ndarray) and np.shares_memory(target, memory.host_copy())):
        _give_back(memory)  # the target may be the owned array
        _copy_out(memory, target)


def _give_back_to_native(memory: MemoryObject, native: Allocation) -> None:
    """Rule S23: a buffer made over a ``cl_mem`` (``make_buffer``) puts its bytes back into it
    when it ends, where commands of another context changed them: through the host, as any
    move between contexts."""
    with RUNTIME: current = memory.holds_all(native.context.handle)  # noqa: E701  # one line (rule S26)
    if current or native.buf is None:
        return
    _read_all(memory, "write-back into the interop cl_mem")
    try:
        native.upload(native.context.transfer_queue(), memory.host_copy(), 0, memory.size, None, True)
    except cl.Error as error:
        raise translate(error, "writing an interop buffer's data back into its cl_mem",
                        native.context.user_context()) from error
    with RUNTIME: _count_give_back(memory)  # noqa: E701  # one line (rule S26)


def _count_give_back(memory: MemoryObject) -> None:
    counters = memory.counters
    counters.h2d_bytes, counters.h2d_copies = counters.h2d_bytes + memory.size, counters.h2d_copies + 1


def _write_back_target(memory: MemoryObject) -> Any:
    """Where destruction writes the data back; None when there is nothing to write."""
    if not memory.write_back or not memory.written or not memory.size:
        return None
    target = memory.target
    if isinstance(target, weakref.ref):
        return target()
    return target if target is not None else memory.user


def _copy_out(memory: MemoryObject, target: Any) -> None:
    dst = np.asarray(target)
    src = memory.host_copy().view(memory.dtype)
    n = min(dst.size, src.size)
    dst.flat[:n] = src[:n]
