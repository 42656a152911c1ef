"""Kernel launches with no requirement and no dependency, enqueued at once: the fast path of
the USM queue shortcuts (``q.parallel_for(n, kernel, p, x)``, ``usm.launch``, docs/usm.md;
docs/scheduler.md rule S27).

Such a launch is what ``command_group.submit`` makes of it (rules S1, S6, S15), done in one
function: no action object, no wait list, no edge. One it cannot enqueue at once (its
in-order queue's last op still waits in the DAG, or runs on the host) is not its business:
``Launcher.launch`` returns None and the caller submits it in full.
"""

from __future__ import annotations

from time import monotonic_ns
from typing import TYPE_CHECKING, Any

import numpy as np

from ..._native import cl, translate
from .. import trace
from ..op import DONE, Op, new_op
from ..runtime import RUNTIME
from .prepared import PreparedKernel

# The lock's own methods: a with statement costs 3% of this shortcut's instructions. Safe from a
# KeyboardInterrupt all the same (docs/scheduler.md rule S26): ``Launcher.launch`` acquires
# inside a try whose handler releases, and releases on the line of its last work.
acquire, release = RUNTIME.lock.acquire, RUNTIME.lock.release

if TYPE_CHECKING:
    from ..lane import Lane


# Values that a launch may pass again without setting them again when they are the very same
# object: immutable, so one object always holds one value. A numpy array (even 0-d) is not:
# it may change in place between two launches, so a launch of one sets its arguments anew.
FIXED_VALUES = (int, float, np.number, np.bool_)


# A launcher's last launch: the ids of its argument objects, the values set as the kernel's
# arguments (never changed), the prepared kernel they are set on, and what the checks keep besides.
Last = tuple[tuple[int, ...], list[Any], PreparedKernel, Any]


class Launcher:
    """The launches of one kernel on one lane, by the argument objects the user passes.

    A subclass checks and converts the arguments (``check``) and says what a range is
    (``size``); the launcher remembers the last launch, and a launch with the very argument
    objects of that one (identity: the same pointers, the same values) reuses its checks and
    its list of values, which its prepared kernel keeps set (``PreparedKernel.args_set``), so it costs
    one enqueue. ``check`` must keep the objects whose ids it remembers alive, or forget
    them (set ``last`` to None) when they die: an id is then never another object's.
    """

    __slots__ = ("__weakref__", "lane", "last", "range")

    def __init__(self, lane: Lane) -> None:
        self.lane = lane
        self.last: Last | None = None
        # The last range, and its launch (``size``).
        self.range: tuple[Any, tuple[int, ...], tuple[int, ...] | None, Any] = (None, (), None, None)

    def check(self, args: tuple[Any, ...]) -> Last | None:
        """``args`` checked and converted, remembered as ``last``; None when the launch
        cannot take this path."""
        raise NotImplementedError

    def size(self, rng: Any) -> tuple[tuple[int, ...], tuple[int, ...] | None, Any] | None:
        """The OpenCL global and local sizes of a launch over ``rng``, and what it runs on
        besides the checked launch's own kernel (None: that kernel; ``guarded`` takes it);
        None when ``rng`` is empty or not a plain range."""
        raise NotImplementedError

    def guarded(self, last: Last, launch: Any) -> PreparedKernel:
        """The prepared kernel that runs ``last``'s arguments for ``launch`` (``size``'s)."""
        raise NotImplementedError

    def launch(self, rng: Any, args: tuple[Any, ...]) -> Op | None:
        """Enqueue the launch over ``rng`` with ``args`` on the lane; the issued op, or None
        when this path cannot take it: arguments ``check`` refuses, a range ``size`` refuses,
        an in-order queue whose last op is not enqueued yet, a running trace (which names
        each op by its action). The caller submits it in full then.

        Raises:
            sycl.exception: ``errc.kernel_argument`` for an argument that does not fit its
                parameter, the translated OpenCL error of a refused enqueue (as ``issue``).
        """
        last = self.last
        same = last is not None and len(args) == len(last[0])
        if same:
            ids = last[0]  # type: ignore[index]
            index = 0
            for arg in args:
                if id(arg) != ids[index]:
                    same = False
                    break
                index += 1  # noqa: SIM113  # cheaper than enumerate's tuples, on the hot path
        if not same:
            last = self.check(args)
            if last is None:
                return None
        known = self.range
        if rng is not known[0]:
            found = self.size(rng)
            if found is None:
                return None
            known = self.range = (rng, *found)
        if trace.RECORDER is not None:
            return None
        _, values, kernel, _ = last  # type: ignore[misc]
        if known[3] is not None:  # a range the checked launch's kernel does not run as it is
            kernel = self.guarded(last, known[3])  # type: ignore[arg-type]  # checked above
        lane = self.lane
        # Interrupted anywhere, the lock is released where it was taken (rule S26): each release
        # is on the line of the work before it, never a line of its own, and the handler
        # releases what this thread holds. An exception of the work comes from inside the
        # lock; a KeyboardInterrupt comes to the main thread, which holds no other level of it.
        try:
            acquire()
            previous = lane.last
            # Rule S6: the previous op of an in-order queue is complete, or enqueued before
            # this on the same in-order OpenCL queue: no edge.
            if (previous is not None and lane.in_order and previous.state != DONE
                    and (previous.event is None or not lane.ordered)):
                release(); return None  # noqa: E702  # one line (rule S26)
            if values is not kernel.args_set:  # OpenCL keeps a kernel's arguments between enqueues
                kernel.set_args(values)
            submitted = monotonic_ns() if lane.profiling else 0
            ev = cl.enqueue_nd_range_kernel(lane.cl_queue, kernel.native, known[1], known[2])
            op = new_op(lane, lane.ctx, False, lane.async_errors, ev, values, submitted); release(); return op  # noqa: E702  # one line (rule S26)
        except BaseException as error:  # no try nested in the try: an interrupt on its line escapes
            if RUNTIME.held():
                release()
            if isinstance(error, cl.Error):
                raise translate(error, "enqueueing a command") from error
            raise

