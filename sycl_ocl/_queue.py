"""``sycl::queue`` (SYCL 2020 §4.6.5)."""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import pyopencl as cl

from ._accessor import accessor
from ._aspect import aspect
from ._async_errors import AsyncErrors
from ._backend import backend
from ._buffer import BUILDING, held_only_by
from ._context import AsyncHandler, context
from ._device import device
from ._event import event, event_of
from ._exception import errc, exception
from ._handler import event_commands, global_size, handler, kernel_args, make_handler, matched_copy
from ._handles import NativeWrapper, cached_wrapper, remember
from ._kernel_bundle.range_launch import enabled_by_default, range_launch
from ._kernel_bundle.resolve import resolve_kernel
from ._native import translate
from ._process import check as check_process
from ._range import nd_range
from .graph import Recorded, command_graph, queue_state, record
from .info._descriptor import check_namespace
from .property import queue as queue_props
from .property._base import PropertyHolder, make_property_list, property_list, trailing_property_list
from .scheduler import (
    Command,
    KernelLaunch,
    Shape,
    check_wait,
    copy_shaped,
    launch,
    may_call_user,
    open_lane,
    recording,
    run_logged,
    submit,
)
from .selector import default_selector_v, select_device
from .usm.launch import Shortcut


class queue(NativeWrapper, PropertyHolder):
    """Submits command groups to one device of one context (§4.6.5).

    The forms of the spec: ``queue()``, ``queue(selector)``, ``queue(device)``,
    ``queue(context, device)``, ``queue(context, selector)``, each with the keywords
    ``async_handler=`` and ``prop_list=``. Queues made without a context share the
    implicit context of the device's platform.

    The OpenCL command queue is always in order; SYCL's out-of-order semantics come from
    the scheduler, which orders commands by their data dependencies only.

    Args:
        first: a ``context``, a ``device``, a device selector (a callable ``device -> int``,
            such as ``sycl.gpu_selector_v``, or a filter string such as ``"opencl:cpu"``,
            docs/device-selection.md) or None for the default device.
        second: with a context first: the device, or a selector over the context's devices.
        async_handler: a callable receiving a ``sycl.exception_list`` of this queue's
            asynchronous errors (``wait_and_throw``, ``throw_asynchronous``); without one
            they go to the context's handler.
        prop_list: ``sycl.property.queue.in_order()``, ``enable_profiling()``.

    Raises:
        sycl.exception: ``errc.runtime`` when the selector finds no device; ``errc.invalid``
            for a device outside the context or a second argument without a context first;
            ``errc.feature_not_supported`` for ``enable_profiling`` on a device without
            ``aspect.queue_profiling``.

    Example::

        q = sycl.queue(sycl.gpu_selector_v, prop_list=[sycl.property.queue.in_order()])
        q.submit(lambda h: h.parallel_for(n, "my_kernel", sycl.accessor(buf, h))).wait()
    """

    __slots__ = ("_async_errors", "_context", "_device", "_in_order", "_lane", "_profiling",
                 "_props", "_recording", "_rounding", "_shortcuts")

    def __init__(
        self,
        first: context | device | Callable[[device], Any] | str | None = None,
        second: device | Callable[[device], Any] | str | None = None,
        async_handler: AsyncHandler | None = None,
        prop_list: property_list | Iterable[Any] | None = None,
    ) -> None:
        (second, async_handler), prop_list = trailing_property_list(  # queue(dev, propList), C++'s order
            (second, async_handler), prop_list, "queue")
        props = make_property_list(prop_list, "queue")
        if isinstance(first, context):
            ctx = first
            dev = select_device(second) if second is not None else _first_supported(ctx)
            ctx._check_device(dev)
        else:
            if second is not None:
                raise exception(
                    errc.invalid,
                    "queue(x, y) takes a context first; use queue(device) or queue(context, device), "
                    "with async_handler= and prop_list= as keywords",
                )
            dev = select_device(first) if first is not None else device()
            ctx = context._default_for_device(dev)
        profiling = props.has_property(queue_props.enable_profiling)
        if profiling and not dev.has(aspect.queue_profiling):
            raise exception(
                errc.feature_not_supported,
                f"{dev!r} cannot profile commands (no aspect.queue_profiling); drop enable_profiling",
            )
        # A running trace (sycl_ocl.tools, docs/tracing.md) profiles every queue made meanwhile.
        traced = recording() and dev.has(aspect.queue_profiling)
        flags: Any = cl.command_queue_properties.PROFILING_ENABLE if profiling or traced else 0
        check_process("making a queue")
        try:
            native = cl.CommandQueue(ctx._native, dev._native, properties=flags)
        except cl.Error as error:
            raise _queue_error(error, ctx, dev) from error
        self._setup(native, ctx, dev, props, async_handler, profiling)
        remember(self)  # so make_queue(get_native(q), ctx) is q itself

    def _setup(
        self,
        native: cl.CommandQueue,
        ctx: context,
        dev: device,
        props: property_list,
        async_handler: AsyncHandler | None,
        profiling: bool | None = None,
    ) -> None:
        """``profiling``: whether the user asked for it (None: as the native queue does)."""
        self._bind(native)
        self._context = ctx
        self._device = dev
        self._props = props
        self._in_order = props.has_property(queue_props.in_order)
        # Whether range launches run in work-groups of sycl_ocl's choice (``range_launch``).
        self._rounding = enabled_by_default() and not props.has_property(queue_props.no_range_rounding)
        self._profiling = (
            bool(native.properties & cl.command_queue_properties.PROFILING_ENABLE) if profiling is None
            else profiling)
        self._async_errors = AsyncErrors(async_handler, fallback=ctx._async_errors)
        self._lane = open_lane(native, ctx, self._async_errors, self._in_order, self._profiling)
        self._recording: weakref.ref[Any] | None = None  # the command graph it records to
        self._shortcuts: dict[Any, Shortcut] = {}  # the kernels of the shortcuts, by their spec

    @classmethod
    def _from_native(cls, native: cl.CommandQueue, ctx: context) -> queue:
        existing = cached_wrapper(cls, native)
        if existing is not None and existing._native is native:
            return existing
        if native.context != ctx._native:
            raise exception(errc.invalid, "make_queue: the queue does not belong to the given context", ctx)
        dev = next(d for d in ctx._devices if d._native == native.device)
        in_order = not native.properties & cl.command_queue_properties.OUT_OF_ORDER_EXEC_MODE_ENABLE
        props = property_list(queue_props.in_order()) if in_order else property_list()
        self = object.__new__(cls)
        self._setup(native, ctx, dev, props, None)
        return remember(self)

    def get_backend(self) -> backend:
        """Always ``backend.opencl`` (§4.6.5.1)."""
        return backend.opencl

    def get_context(self) -> context:
        """The queue's context (§4.6.5.1)."""
        return self._context

    def get_device(self) -> device:
        """The queue's device (§4.6.5.1)."""
        return self._device

    def is_in_order(self) -> bool:
        """Whether the queue has the ``in_order`` property (§4.6.5.1)."""
        return self._in_order

    def get_info(self, desc: Any) -> Any:
        """The value of a ``sycl.info.queue`` descriptor (§4.6.5.2)."""
        return check_namespace(desc, "queue", "queue").query(self)

    def submit(self, cgf: Callable[[handler], Any], secondary_queue: queue | None = None) -> event:
        """Run the command-group function and schedule its command; never blocks (§4.6.5.1).

        On a queue recording to a command graph, the command becomes a node of the graph.

        Args:
            cgf: the command-group function, called with a ``sycl.handler``.
            secondary_queue: the fallback of Table 28: when the submission to this queue
                raises a ``sycl.exception`` (the command group cannot run here, such as a
                kernel bundle of another context), ``cgf`` runs again, on ``secondary_queue``,
                and the event is of that queue. Errors after a successful submission stay
                asynchronous errors of this queue.

        Raises:
            sycl.exception: the secondary queue's error when both submissions fail (its
                ``__cause__`` is the primary's); ``errc.invalid`` when ``secondary_queue`` is
                not a queue.
        """
        if secondary_queue is not None:
            return self._submit_or_fall_back(cgf, secondary_queue)
        h = make_handler(self)
        building = BUILDING.slot  # this thread's command group being built (rule S29)
        outer = building[0]  # a submit's whose command-group function submits
        try:
            building[0] = h
            cgf(h)
            building[0] = outer  # buffers local to cgf ended as it returned
            action = h._action
            if type(action) is Shape and h._settings is None and self._recording is None:
                # h._submit() of a launch of a known shape with nothing to wait for, in place
                owners = None if h._owning is None else held_only_by(h._owning)
                return event_of(launch(action, h, (), owners), self._context)
            if self._recording is None and not h._depends:
                return h._submit()
            return self._finish(h)
        except BaseException:
            # First, with no call before it where an interrupt could land (rule S26).
            building[0] = outer
            # The error's traceback holds the handler: not its buffers, nor, as its accessors
            # go first, a buffer handed on to it as they end (rule S29).
            h._accessors, h._owning = [], None
            raise

    def _submit_or_fall_back(self, cgf: Callable[[handler], Any], secondary: queue) -> event:
        if not isinstance(secondary, queue):
            raise exception(errc.invalid, f"submit(cgf, secondary_queue) takes a sycl.queue second, got "
                                          f"{type(secondary).__name__}; pass properties to the queue's "
                                          "constructor")
        try:
            return self.submit(cgf)
        except exception as primary_error:
            try:
                return secondary.submit(cgf)
            except exception as error:
                raise error from primary_error

    def _finish(self, h: handler) -> event:
        """Schedule the finished command group, or record it (``graph.record``)."""
        if self._recording is not None or any(type(cmd) is Recorded for cmd in h._depends):
            return record(self, h)
        return h._submit()

    def wait(self) -> None:
        """Block until every command submitted to this queue completed (§4.6.5.1).

        Raises:
            sycl.exception: ``errc.invalid`` while the queue records to a command graph, or
                when a command of it waits for a host accessor this thread holds open (the
                wait would never end; docs/scheduler.md rule S22).
        """
        if self._recording is not None:
            raise exception(errc.invalid, "waiting on a queue that records to a command graph: its "
                                          "commands do not run; end_recording first")
        watch = check_wait(self._lane.ops, "queue.wait()")
        self._lane.wait_all()
        if watch is not None:
            watch.cancel()

    def wait_and_throw(self) -> None:
        """``wait()``, then deliver asynchronous errors (§4.6.5.1)."""
        self.wait()
        self.throw_asynchronous()

    def throw_asynchronous(self) -> None:
        """Deliver stored asynchronous errors to the async handler (§4.6.5.1)."""
        self._async_errors.deliver()

    # --- shortcuts (§4.6.5.2) --------------------------------------------------------

    def single_task(self, kernel: Any, *args: Any, depends_on: Any = None) -> event:
        """``submit`` of one ``handler.single_task`` (§4.6.5.2).

        Arguments reach the kernel as :meth:`sycl.handler.parallel_for` describes; an
        accessor needs a handler, so kernels launched this way take scalars, USM pointers
        or ``pyopencl`` buffers. ``depends_on`` is an event or a list of events to wait for.
        """
        if self._recording is None:
            if depends_on is None:
                op = self._shortcut(kernel).launch(1, args)
                if op is not None:
                    return event_of(op, self._context)
            deps = _commands(depends_on)
            if deps is not None:
                return self._direct(kernel, (1,), args, deps)
        return self._one(depends_on, handler.single_task, kernel, *args)

    def parallel_for(self, rng: Any, kernel: Any, *args: Any, depends_on: Any = None) -> event:
        """``submit`` of one ``handler.parallel_for`` (§4.6.5.2).

        ``rng``, ``kernel`` and ``args`` are as for :meth:`sycl.handler.parallel_for`
        (``get_global_id(0)`` walks the last SYCL dimension); an accessor needs a handler, so
        kernels launched this way take scalars, USM pointers or ``pyopencl`` buffers.
        ``depends_on`` is an event or a list of events to wait for.
        """
        if self._recording is None:
            if depends_on is None:  # the fast path first (``usm.launch``)
                try:
                    shortcut = self._shortcuts[kernel]
                except (KeyError, TypeError):
                    shortcut = self._shortcut(kernel)
                op = shortcut.launch(rng, args)
                if op is not None:
                    return event_of(op, self._context)
            if not isinstance(rng, nd_range):
                deps = _commands(depends_on)
                if deps is not None:
                    return self._direct(kernel, global_size(rng), args, deps)
        return self._one(depends_on, handler.parallel_for, rng, kernel, *args)

    def _shortcut(self, name: Any) -> Shortcut:
        """The shortcuts' kernel of ``name`` on this queue, resolved on first use."""
        try:
            found = self._shortcuts.get(name)
        except TypeError:  # unhashable, so no kernel: resolve_kernel raises what it may be
            found = None
        if found is None:
            resolved = resolve_kernel(name, self._context, self._device, None, {})
            found = self._shortcuts[name] = Shortcut(
                resolved, self._lane, self._context._handle, self._device if self._rounding else None)
        return found

    def _direct(
        self, name: Any, size: tuple[int, ...], args: tuple[Any, ...], deps: Sequence[Command]
    ) -> event:
        """Submit the launch of a shortcut that the fast path does not take (``usm.launch``),
        made without a handler: its arguments are scalars, USM pointers or ``pyopencl``
        buffers (an accessor needs a handler: ``kernel_args`` raises for one, as the
        handler's way would)."""
        memory, _, svm_args = kernel_args(args, self._context._handle, False, None)
        found = self._shortcut(name).kernel
        found._check_launch(args, None)
        launched, size, local = range_launch(found, self._device if self._rounding else None, size, svm_args)
        launch = KernelLaunch(launched, size, local, None, memory, ())
        return event_of(submit(self._lane, launch, (), deps), self._context)

    def memcpy(self, dest: Any, src: Any, num_bytes: int, depends_on: Any = None) -> event:
        """``submit`` of one ``memcpy`` between USM pointers and numpy arrays (§4.6.5.2)."""
        return self._one(depends_on, handler.memcpy, dest, src, num_bytes)

    def copy(self, src: Any, dest: Any, count: Any = None, depends_on: Any = None) -> event:
        """``submit`` of one ``copy``: ``count`` elements between USM pointers and numpy
        arrays, or (no count) between an accessor and an array or two accessors, which
        are required first (§4.6.5.2)."""
        if count is None and depends_on is None and self._recording is None:
            # A copy of a shape this lane copied before (rule S32): its command group, at once.
            found = matched_copy(src, dest, self._lane)
            if found is not None:
                shape = found[1]
                return event_of(copy_shaped(shape, dest if shape.to_host else src), self._context)
        return self._one(depends_on, _copy_required, src, dest, count)

    def memset(self, ptr: Any, value: int, num_bytes: int, depends_on: Any = None) -> event:
        """``submit`` of one ``memset`` (§4.6.5.2)."""
        return self._one(depends_on, handler.memset, ptr, value, num_bytes)

    def fill(self, ptr: Any, pattern: Any, count: Any = None, depends_on: Any = None) -> event:
        """``submit`` of one ``fill``: ``count`` copies of ``pattern`` from a USM pointer, or
        (no count) every element of an accessor, which is required first (§4.6.5.2)."""
        return self._one(depends_on, _fill_required, ptr, pattern, count)

    def prefetch(self, ptr: Any, num_bytes: int, depends_on: Any = None) -> event:
        """``submit`` of one ``prefetch`` (§4.6.5.2)."""
        return self._one(depends_on, handler.prefetch, ptr, num_bytes)

    def mem_advise(self, ptr: Any, num_bytes: int, advice: int, depends_on: Any = None) -> event:
        """``submit`` of one ``mem_advise`` (§4.6.5.2)."""
        return self._one(depends_on, handler.mem_advise, ptr, num_bytes, advice)

    def update_host(self, acc: Any) -> event:
        """``submit`` of one ``update_host``, the accessor required first (§4.6.5.2)."""
        return self._one(None, _update_host_required, acc)

    def _one(self, depends_on: Any, member: Callable[..., None], *args: Any) -> event:
        """Submit a command group of one handler member call (the shortcuts)."""
        h = make_handler(self)
        if depends_on is not None:
            h.depends_on(depends_on)
        member(h, *args)
        if self._recording is None and not h._depends:
            return h._submit()
        return self._finish(h)

    # --- command graphs (sycl_ext_oneapi_graph, docs/graphs.md) ---------------------------

    def ext_oneapi_graph(self, graph: command_graph, depends_on: Any = None) -> event:
        """Replay an executable command graph, after ``depends_on`` (an event or a list); the
        event completes when every node has (the SYCL extension ``sycl_ext_oneapi_graph``,
        docs/graphs.md).

        Raises:
            sycl.exception: ``errc.invalid`` for a modifiable graph, a graph of another
                context or device, or one whose buffers were destroyed.
        """
        return self._one(depends_on, handler.ext_oneapi_graph, graph)

    def ext_oneapi_get_state(self) -> queue_state:
        """``queue_state.recording`` while the queue records to a command graph, else
        ``queue_state.executing`` (SYCL extension ``sycl_ext_oneapi_graph``)."""
        graph = self._recording() if self._recording is not None else None
        return queue_state.recording if graph is not None else queue_state.executing

    def ext_oneapi_get_graph(self) -> command_graph:
        """The command graph the queue records to (SYCL extension ``sycl_ext_oneapi_graph``).

        Raises:
            sycl.exception: ``errc.invalid`` when the queue does not record.
        """
        graph = self._recording() if self._recording is not None else None
        handle = graph.handle() if graph is not None else None
        if handle is None:
            raise exception(errc.invalid, f"{self!r} does not record to a command graph")
        return handle

    def __del__(self) -> None:
        """The destruction (§4.13.1): errors still stored go to the async handler when it runs
        on a user's thread (``del q``); inside a garbage collection they are logged later."""
        errors: AsyncErrors | None = getattr(self, "_async_errors", None)
        if errors is not None and errors.pending() and may_call_user():
            run_logged(errors.hand_over, "the async handler at a queue's destruction")

    def __repr__(self) -> str:
        return f"<sycl.queue on {self._device!r}>"




def _commands(events: Any) -> Sequence[Command] | None:
    """The commands of ``depends_on`` (an event, a list of events or None); None when one is a
    recorded command's (the handler's way records the command group, or refuses it)."""
    if events is None:
        return ()
    cmds = event_commands(events)
    return None if any(type(cmd) is Recorded for cmd in cmds) else cmds


def _require(h: handler, *args: Any) -> None:
    for arg in args:
        if isinstance(arg, accessor):
            h.require(arg)


def _copy_required(h: handler, src: Any, dest: Any, count: Any) -> None:
    _require(h, src, dest)
    h.copy(src, dest, count)


def _fill_required(h: handler, dest: Any, value: Any, count: Any) -> None:
    _require(h, dest)
    h.fill(dest, value, count)


def _update_host_required(h: handler, acc: Any) -> None:
    _require(h, acc)
    h.update_host(acc)


def _first_supported(ctx: context) -> device:
    return max(ctx._devices, key=lambda d: default_selector_v(d))


def _queue_error(error: cl.Error, ctx: context, dev: device) -> exception:
    """The exception for a refused ``clCreateCommandQueue``. SYCL accepts a sub-device of a
    context's device (§4.6.5.1) but OpenCL need not: a queue's device must be one the
    ``cl_context`` was created with (Intel's CPU runtime holds to that, PoCL does not)."""
    if error.code == cl.status_code.INVALID_DEVICE and dev not in ctx.get_devices():
        return exception(
            errc.invalid,
            f"the OpenCL driver refuses a queue on the sub-device {dev!r} in a context made "
            f"without it ({ctx!r}); create the context with the sub-device: sycl.queue(sub_device) "
            "or sycl.queue(sycl.context(sub_device), sub_device)",
            ctx,
        )
    return translate(error, f"creating a queue on {dev!r}")
