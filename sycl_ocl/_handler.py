"""``sycl::handler`` (SYCL 2020 §4.9.4): records one command group's requirements and action."""

from __future__ import annotations

import builtins
import inspect
from collections.abc import Callable, Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import pyopencl as cl

from ._accessor import accessor, host_task_body, local_accessor
from ._buffer import buffer, held_only_by
from ._event import event, event_list, event_of
from ._exception import errc, exception
from ._image_accessor import IMAGE_ACCESSORS, check_image_arguments, with_samplers
from ._interop_handle import interop_handle
from ._kernel_bundle.bundle import kernel_bundle
from ._kernel_bundle.range_launch import enabled_by_default, range_launch
from ._kernel_bundle.resolve import resolve_kernel
from ._kernel_bundle.spec_constants import checked_spec_id
from ._range import SIZE_END, as_range, nd_range, range
from ._reduction import launch as launch_with_reductions
from ._reduction import reduction
from .access import target
from .scheduler import (
    FIXED_VALUES,
    Barrier,
    Command,
    CopyShape,
    DeviceCopy,
    DeviceFill,
    HostCopy,
    HostTask,
    KernelLaunch,
    NativeTask,
    Requirement,
    Shape,
    copy_key,
    copy_shaped,
    joined_order,
    keep,
    launch,
    matching,
    submit,
)
from .usm import commands as usm_commands
from .usm.pointer import usm_ptr

if TYPE_CHECKING:
    from ._context import context
    from ._device import device
    from .scheduler import Lane


class handler:
    """The command-group handler: built by ``queue.submit``, passed to the cgf (§4.9.4).

    It records the command's dependencies, the requirements of its accessors and exactly one
    action (a kernel, a copy, a fill, a host task, ...). The scheduler turns them into OpenCL
    commands and returns an operation, which the user receives wrapped in an ``event``.
    """

    __slots__ = ("_accessors", "_action", "_call", "_discards", "_origin", "_owning", "_settings")

    # Where the command group goes: its queue, or a command graph's ``GraphOrigin`` (the
    # ``_lane``, ``_context`` and ``_device`` below).
    _origin: Origin
    # The accessors that joined the command group, in that order; each requires its window
    # (``_requirements``). An accessor joins through ``_register``, which checks it, but a
    # whole-buffer device accessor, with nothing to check, appends itself here: a method call
    # would cost the submit path 2% (bench/instructions.py; docs/scheduler.md "Layers").
    _accessors: list[accessor]
    # The buffers of accessors that joined by ``_register`` (a buffer's first of its kind, a
    # placeholder's), held until the submit, which gives the command those nothing else holds
    # (``buffer.held_only_by``, docs/scheduler.md rule S29); None for none.
    _owning: list[buffer] | None
    # The positions of the accessors whose requirement discards the old contents here: a copy,
    # fill or reduction that overwrites the range whole (``_overwrite``).
    _discards: tuple[int, ...]
    _action: Any
    # Made on first use: most command groups set none (fewer stores and checks per submit).
    _settings: _Settings | None
    _call: tuple[Any, ...]  # a launch of a known shape: its arguments (set with the shape as the action)

    @property
    def _lane(self) -> Lane | None:
        """The queue's lane in the scheduler (None: a command graph's node)."""
        return self._origin._lane

    @property
    def _context(self) -> context:
        return self._origin._context

    @property
    def _device(self) -> device:
        return self._origin._device

    @property
    def _requirements(self) -> list[Requirement]:
        """The command group's requirements: each accessor's, in the order they joined (one
        that a copy, fill or initializing reduction overwrites whole discards, ``_overwrite``),
        then those of an executable graph it replays."""
        requirements = [acc._win.req for acc in self._accessors]
        for k in self._discards:
            requirements[k] = requirements[k].discarding()
        requirements.extend((self._settings or _DEFAULTS).replayed)
        return requirements

    @property
    def _depends(self) -> Sequence[Command]:
        """The commands of the events depended on."""
        return (self._settings or _DEFAULTS).depends

    @property
    def _member(self) -> str | None:
        """The member that set the action, where its type does not say."""
        return (self._settings or _DEFAULTS).member

    # --- dependencies -----------------------------------------------------------------

    def depends_on(self, events: event | Iterable[event]) -> None:
        """Run the command after these events completed (§4.9.4.1)."""
        commands = event_commands(events)
        settings = self._own_settings()
        settings.depends = [*settings.depends, *commands]

    def require(self, acc: accessor) -> None:
        """Add an accessor's requirement to this command group (§4.9.4.1).

        Binds a placeholder accessor; accessors made with this handler are already required.

        Raises:
            sycl.exception: ``errc.invalid`` for a sub-buffer misaligned for the queue's device,
                or a placeholder whose buffer was destroyed since it was made.
        """
        if not isinstance(acc, accessor):
            raise exception(errc.invalid, f"require takes a sycl.accessor, got {acc!r}")
        if acc not in self._accessors:  # identity: accessors do not define __eq__
            buf = getattr(acc, "_buf", None)
            if buf is not None:
                buf._check_alive()  # its with block may have ended since the placeholder was made
            self._register(acc, buf)

    def _register(self, acc: accessor, buf: buffer | None) -> None:
        """Add ``acc`` and its requirement to the command group once checked: how an accessor
        made with this handler joins it, or a placeholder bound by ``require`` (§4.7.6.9); a
        whole-buffer device accessor, with nothing to check, appends itself to ``_accessors``.
        The group holds ``buf``, the accessor's buffer, until its submit (rule S29).

        Raises:
            sycl.exception: ``errc.invalid`` for a sub-buffer misaligned for the queue's
                device, or a ``target.host_task`` accessor in a host task with native access.
        """
        if acc._win.sub_base:
            acc._check_alignment(self._device)
        if acc._kind[0] is _HOST_TASK:
            self._check_native_target(acc)
        self._accessors.append(acc)
        if buf is not None:
            if self._owning is None:
                self._owning = [buf]
            else:
                self._owning.append(buf)

    # --- kernel arguments and launches ------------------------------------------------

    def set_arg(self, index: int, value: Any) -> None:
        """Set one kernel argument for the next launch without arguments (§4.9.4.2)."""
        if index < 0:
            raise exception(errc.kernel_argument, f"argument index {index} is negative")
        settings = self._own_settings()
        settings.args = {**settings.args, int(index): value}

    def set_args(self, *values: Any) -> None:
        """Set every kernel argument, in order (§4.9.4.2)."""
        self._own_settings().args = dict(enumerate(values))

    def use_kernel_bundle(self, bundle: Any) -> None:
        """Take the kernels of this command group from an executable bundle (§4.9.4.4).

        Raises:
            sycl.exception: ``errc.invalid`` if the command group set a specialization constant,
                or for anything but a ``sycl.kernel_bundle``.
        """
        if not isinstance(bundle, kernel_bundle):
            raise exception(
                errc.invalid, f"use_kernel_bundle takes an executable sycl.kernel_bundle, got {bundle!r}")
        if (self._settings or _DEFAULTS).spec_constants:
            raise exception(
                errc.invalid,
                "use_kernel_bundle after set_specialization_constant: a command group takes its "
                "specialization constants from the handler or from a bundle, not both (§4.9.4.5); "
                "set them on the input bundle before building it",
            )
        self._own_settings().bundle = bundle

    def set_specialization_constant(self, spec_id: Any, value: Any) -> None:
        """Set a specialization constant for this command group's kernel (§4.9.4.5).

        Raises:
            sycl.exception: ``errc.invalid`` after ``use_kernel_bundle``, for anything but a
                ``sycl.specialization_id`` or a value its type cannot hold.
        """
        self._check_no_bundle("set_specialization_constant")
        value = checked_spec_id(spec_id, "set_specialization_constant").convert(value)
        settings = self._own_settings()
        settings.spec_constants = {**settings.spec_constants, spec_id: value}

    def get_specialization_constant(self, spec_id: Any) -> Any:
        """The value the kernel of this command group will see (§4.9.4.5).

        Raises:
            sycl.exception: ``errc.invalid`` after ``use_kernel_bundle``.
        """
        self._check_no_bundle("get_specialization_constant")
        constants = (self._settings or _DEFAULTS).spec_constants
        if spec_id in constants:
            return constants[spec_id]
        return spec_id.default

    def _own_settings(self) -> _Settings:
        """The command group's settings, to change (made on first use)."""
        settings = self._settings
        if settings is None:
            settings = self._settings = _Settings()
        return settings

    def _check_no_bundle(self, call: str) -> None:
        if (self._settings or _DEFAULTS).bundle is not None:
            raise exception(
                errc.invalid,
                f"{call} after use_kernel_bundle: the bundle's images fixed their specialization "
                "constants (§4.9.4.5); use kernel_bundle.get/set_specialization_constant on the "
                "input bundle instead",
            )

    def single_task(self, kernel: Any, *args: Any) -> None:
        """Run the kernel once, as one work-item (§4.9.4.2).

        ``kernel`` and ``args`` are as for :meth:`parallel_for`; ``get_global_id(0)`` is 0.
        """
        self.parallel_for(1, kernel, *args)

    def parallel_for(self, rng: Any, kernel: Any, *args: Any) -> None:
        """Run the kernel once per work-item of a ``range`` or an ``nd_range`` (§4.9.4.2).

        ``parallel_for(rng, red1, red2, ..., kernel, *args)`` runs it with reductions
        (``sycl.reduction``, §4.9.2): the kernel declares one reducer per reduction as its first
        parameters (docs/reductions.md).

        The kernel is an OpenCL C ``__kernel`` function. Each argument reaches the parameter
        in the same position:

        - ``sycl.accessor``: the address of its first accessed element, as ``__global T*``
          (a ranged accessor points at its offset; rows keep the buffer's row length); its
          element type must be ``T`` (``void*``, ``char*``, ``uchar*`` take any);
        - ``sycl.local_accessor``: ``__local T*`` memory of its size, one per work-group
          (over an ``nd_range`` only);
        - a numpy scalar (``np.float32(2)``): passed by value;
        - a Python ``int`` / ``float``: converted to the parameter's declared type
          (``int``, ``float``, ``size_t``, ...); a ``float`` for an integer parameter raises;
        - a ``pyopencl.Buffer``: passed as it is (interop).

        Dimensions: SYCL dimension ``d`` of an N-dimensional range is OpenCL dimension
        ``N-1-d``, so ``get_global_id(0)`` walks the last SYCL dimension, the one that varies
        fastest in a numpy C-order array: over ``sycl.range(rows, cols)``,
        ``get_global_id(0)`` is the column and ``get_global_id(1)`` the row. The same holds
        for ``nd_range`` local sizes and offsets.

        Args:
            rng: a ``sycl.range``, a ``sycl.nd_range`` (global and work-group sizes, for
                kernels that use local memory or barriers), or an int (a 1-D range).
            kernel: an application kernel's name (its ``__kernel`` function name, from
                ``sycl.register_kernel_source``), a ``sycl.kernel_id`` or a ``sycl.kernel``.
            *args: the kernel arguments, as above; or none after ``set_arg`` / ``set_args``.

        Raises:
            sycl.exception: ``errc.invalid`` for a kernel name nobody registered;
                ``errc.kernel_argument`` for a wrong argument count, an argument that does
                not fit its parameter (the message names the parameter), a local_accessor
                over a plain range, local memory beyond the device's ``local_mem_size`` or a
                ``pyopencl.Buffer`` of another context; ``errc.invalid`` for a negative range
                or one beyond ``size_t``; ``errc.accessor``
                for an accessor of another command group; ``errc.build`` when the kernel's
                unit fails to build (the message holds the build log).

        Example::

            sycl.register_kernel_source('''
                __kernel void scale(__global float *x, float a) {
                    x[get_global_id(0)] *= a;
                }''')
            with sycl.buffer(data) as buf:
                q.submit(lambda h: h.parallel_for(
                    sycl.range(data.size), "scale", sycl.accessor(buf, h), 2.0))
        """
        if type(rng) is int and 0 <= rng < SIZE_END:  # the common 1-D case, no range: the int is its key
            sizes: Any = rng
        elif type(rng) is range:  # _sizes(rng), in place: the common case of a range
            sizes = (rng._cl, None, None)
        else:
            sizes = _sizes(rng)
        # A launch of a shape this lane launched before (checked then, rule S20) is recorded as
        # that shape: kept by the window of the command group's first accessor.
        accessors = self._accessors
        if accessors and self._settings is None:
            shape = matching(accessors[0]._win.shapes, kernel, self._origin._lane, sizes, args, accessors)
            if shape is not None:
                if self._action is not None:
                    raise _two_actions()
                self._action = shape
                self._call = args
                return None
        return self._launch(kernel, sizes, args)

    def _launch(self, kernel: Any, sizes: Any, args: tuple[Any, ...]) -> None:
        """Record a kernel launch that is no known shape's; ``sizes``: an int for a 1-D launch
        over an int, else the global and local sizes and the offset (a local size: over an
        nd_range, with work-groups and local memory).

        Everything is checked here, so a rejected launch submits nothing. The launch's shape
        (``scheduler.Shape``) is kept for the next launches of the lane to take as it is.
        """
        if type(kernel) is reduction:  # parallel_for(rng, reductions..., kernel, *args) (§4.9.2)
            return self._set_action(launch_with_reductions(self, sizes, kernel, args))
        global_size, local_size, offset = ((sizes,), None, None) if type(sizes) is int else sizes
        first = self._accessors[0] if self._accessors else None
        settings = self._settings or _DEFAULTS
        if not args:
            args = _ordered_args(settings.args)
        elif settings.args:
            raise exception(
                errc.kernel_argument,
                "arguments were given both with set_arg(s) and to the launch; use one way",
            )
        grouped = local_size is not None  # over an nd_range
        args = with_samplers(args, self._context._native)  # a sampled image's sampler_t follows it
        memory, bindings, svm_args = kernel_args(args, self._context._handle, grouped, self._accessors)
        resolved = resolve_kernel(
            kernel, self._context, self._device, settings.bundle, settings.spec_constants)
        check_image_arguments(resolved, args)
        resolved._check_launch(args, local_size, self._device)
        if local_size is None:  # over a range: in work-groups of our choice, where the kernel allows
            launched, global_size, local_size = range_launch(
                resolved, self._device if self._origin._rounding else None, global_size, svm_args)
        else:
            launched = resolved._for_svm(svm_args) if svm_args else resolved
        if self._action is not None:
            raise _two_actions()
        self._action = KernelLaunch(launched, global_size, local_size, offset, memory, bindings)
        plain = self._settings is None  # no set_arg(s), bundle or specialization constant
        signature = _signature(args) if plain and first is not None and first._win.shared else None
        order = None if signature is None else joined_order(signature, args, self._accessors)
        if signature is not None and order is not None and first is not None and self._lane is not None:
            shape = Shape(self._lane, launched, global_size, local_size, offset, signature, order,
                          self._requirements, sizes)
            keep(first._win.shapes, kernel, shape)

    # --- explicit memory operations (§4.9.4.3) ------------------------------------------

    def copy(self, src: Any, dst: Any, count: Any = None) -> None:
        """Copy between an accessor and a numpy array, or between two accessors (§4.9.4.3).

        The source accessor's range is copied in row-major order into the start of the
        destination, which must hold as many elements; an array into an accessor gives its
        first elements, as many as the accessor's range holds (fewer: the start of the range
        takes them). A contiguous range and a C-contiguous array of the accessor's type move
        in one non-blocking transfer behind the commands before it: the array must stay alive and
        untouched until the command's event completes. ``copy(src, dest, count)`` copies
        ``count`` elements between USM pointers and numpy arrays instead.
        """
        if count is not None or type(src) is usm_ptr or type(dst) is usm_ptr:
            self._set_action(usm_commands.copy(self, src, dst, count))
            return
        # A copy of a shape this lane copied before (checked then, rule S32), the command
        # group's one accessor: recorded as that shape's.
        if self._action is None and len(self._accessors) == 1:
            found = matched_copy(src, dst, self._origin._lane)
            if found is not None and found[0] is self._accessors[0]:
                acc, shape = found
                if not shape.to_host:
                    self._overwrite(acc)  # the array fills the window
                self._action = HostCopy(acc._win.req, dst if shape.to_host else src, shape.to_host, shape)
                return
        if isinstance(src, accessor):
            self._check_mine(src)
        if isinstance(dst, accessor):
            self._check_mine(dst)
            if not dst._win.writes:
                raise exception(errc.invalid, "the copy destination accessor must have a write mode")
        elif isinstance(dst, np.ndarray) and not dst.flags.writeable:
            raise exception(errc.invalid, "handler.copy into a read-only numpy array (flags.writeable is "
                                          "False); copy into a writable array")
        n, room = _copy_counts(src, dst)
        if n < 0 or room < n:
            raise exception(
                errc.invalid,
                "handler.copy copies accessor <-> numpy array or accessor -> accessor, into a "
                f"destination with room for the source's range ({n} elements, room for {room})",
            )
        if isinstance(dst, accessor) and dst.size() == n:
            self._overwrite(dst)  # only a copy that fills the destination may skip its old contents
        if isinstance(src, accessor) and isinstance(dst, accessor):
            if src._win.contiguous and dst._win.contiguous and src.dtype == dst.dtype and n == room:
                self._set_action(DeviceCopy(src._win.req, dst._win.req))
                return
        else:
            acc, array = (src, dst) if isinstance(src, accessor) else (dst, src)
            if (acc._win.contiguous and array.dtype == acc.dtype and array.flags.c_contiguous
                    and (acc is dst or array.flags.writeable)):
                kept = self._copy_shape(acc, array, n, acc is src)
                self._set_action(HostCopy(acc._win.req, array.reshape(-1)[:n], acc is src, kept))
                return
        self._set_action(HostTask(lambda: _copy_on_host(src, dst, n)))

    def _copy_shape(self, acc: accessor, array: np.ndarray, n: int, to_host: bool) -> CopyShape | None:
        """The shape (rule S32) of a copy of ``n`` elements between ``acc`` and ``array`` that
        passed its checks as one transfer, kept on the accessor's window for later copies of
        its lane to take as it is: where the array fills the window and the accessor is the
        command group's one accessor, on an in-order OpenCL queue; else None."""
        lane = self._origin._lane
        if (lane is None or not lane.ordered or n == 0 or n != array.size or n != acc.size()
                or self._accessors != [acc]):
            return None
        shapes: dict[Any, Any] = acc._win.shapes  # the launches' shapes, and copies' by ``copy_key``
        key = copy_key(lane, to_host)
        shape: CopyShape | None = shapes.get(key)
        if shape is None:
            req = self._requirements[0]  # the array fills the window: a copy into it discards
            shape = shapes[key] = CopyShape(lane, req, to_host, n, acc.dtype)
        return shape

    def fill(self, dst: Any, value: Any, count: Any = None) -> None:
        """Set every element of the accessor's range to ``value`` (§4.9.4.3).

        ``fill(ptr, pattern, count)`` writes ``count`` copies of ``pattern`` from a USM pointer.
        """
        if count is not None or type(dst) is usm_ptr:
            self._set_action(usm_commands.fill(self, dst, value, count))
            return
        if not isinstance(dst, accessor) or not dst._win.writes:
            raise exception(errc.invalid, "handler.fill needs an accessor with a write mode")
        self._check_mine(dst)
        self._overwrite(dst)
        try:
            pattern = np.array([value], dtype=dst.dtype)
        except (TypeError, ValueError, OverflowError) as error:
            raise exception(
                errc.invalid, f"handler.fill: the value {value!r} is no {dst.dtype} ({error})") from error
        if dst._win.contiguous:
            self._set_action(DeviceFill(dst._win.req, pattern))
        else:
            self._set_action(HostTask(lambda: dst._view().__setitem__(Ellipsis, pattern[0])))

    def memcpy(self, dest: Any, src: Any, num_bytes: int) -> None:
        """Copy ``num_bytes`` bytes; each end is a USM pointer or a numpy array (§4.9.4.3)."""
        self._set_action(usm_commands.memcpy(self, dest, src, num_bytes))

    def memset(self, ptr: usm_ptr, value: int, num_bytes: int) -> None:
        """Set ``num_bytes`` bytes from a USM pointer to ``value`` (an unsigned char) (§4.9.4.3)."""
        self._set_action(usm_commands.memset(self, ptr, value, num_bytes))
        self._own_settings().member = "memset"

    def prefetch(self, ptr: usm_ptr, num_bytes: int) -> None:
        """Move ``num_bytes`` of shared memory to the queue's device ahead of use (§4.9.4.3)."""
        self._set_action(usm_commands.prefetch(self, ptr, num_bytes))
        self._own_settings().member = "prefetch"

    def mem_advise(self, ptr: usm_ptr, num_bytes: int, advice: int) -> None:
        """Advise on a USM range; OpenCL has no advice, so this only orders (§4.9.4.3)."""
        self._set_action(usm_commands.mem_advise(self, ptr, num_bytes, advice))
        self._own_settings().member = "memadvise"

    def update_host(self, acc: accessor) -> None:
        """Bring the accessor's range up to date in the buffer's host memory (§4.9.4.3)."""
        if not isinstance(acc, accessor):
            raise exception(errc.invalid, f"update_host takes a sycl.accessor, got {acc!r}")
        self._check_mine(acc)
        self._set_action(HostTask(None))  # the transfer before it is the whole work

    def _check_mine(self, acc: accessor) -> None:
        if acc not in self._accessors:
            raise _not_mine(acc)

    # --- host tasks ---------------------------------------------------------------------

    def host_task(self, fn: Callable[..., Any]) -> None:
        """Run ``fn()``, or ``fn(ih)`` when ``fn`` takes one parameter, on a host thread once
        the dependencies completed (§4.10).

        ``fn()``: the accessors of this command group are current on the host while ``fn``
        runs; ``numpy.asarray(acc)`` inside ``fn`` is a view of the accessed range.

        ``fn(ih)``: ``ih`` is a :class:`sycl.interop_handle` (§4.10.2). The accessors' memory
        is current in the queue's context instead: ``ih.get_native_mem(acc)`` gives it, and
        what ``fn`` enqueues on ``ih.get_native_queue()`` is part of the host task, so later
        commands see its results. The host copies are not current then: use
        ``target.host_task`` accessors in a separate host task.

        Raises:
            sycl.exception: ``errc.invalid`` for anything but a callable of zero or one
                required parameter, or for a ``target.host_task`` accessor in a host task
                taking an ``interop_handle``.
        """
        if not callable(fn):
            raise exception(errc.invalid, f"host_task takes a callable, got {fn!r}")
        if not _takes_interop_handle(fn):
            self._set_action(HostTask(host_task_body(fn)))
            return
        accessors = self._accessors  # the list: accessors made after this call join it
        self._set_action(NativeTask(lambda scope: fn(interop_handle._make(scope, accessors))))
        for acc in accessors:
            self._check_native_target(acc)

    def _check_native_target(self, acc: accessor) -> None:
        """``errc.invalid`` for a ``target.host_task`` accessor in a host task with native
        access: its memory is current in the queue's context, not on the host."""
        if type(self._action) is NativeTask and acc._kind[0] is target.host_task:
            raise exception(
                errc.invalid,
                "a host task taking an interop_handle has its accessors' memory in the queue's "
                "context (for get_native_mem), so a target.host_task accessor would see stale "
                "host data; access the buffer on the host in a separate host task without the "
                "interop_handle parameter",
            )

    # --- command graphs (sycl_ext_oneapi_graph) ----------------------------------------

    def ext_oneapi_graph(self, graph: Any) -> None:
        """Replay an executable command graph as this command group's command (the SYCL extension
        ``sycl_ext_oneapi_graph``, docs/graphs.md).

        Raises:
            sycl.exception: ``errc.invalid`` for a modifiable graph, a graph of another
                context or device than the queue's, or one whose buffers were destroyed.
        """
        check = getattr(graph, "_check_replay", None)
        if check is None:
            raise exception(errc.invalid,
                            f"ext_oneapi_graph takes an executable command_graph, got {graph!r}")
        replay = check(self._context, self._device)
        self._set_action(replay)
        self._own_settings().replayed = replay.requirements

    # --- internals ----------------------------------------------------------------------

    def _overwrite(self, acc: accessor) -> None:
        """This command writes the whole (contiguous) range: its old contents need not move.

        Only this command group's requirement changes: the accessor (a placeholder may be
        required again) keeps its own.
        """
        if acc._win.contiguous:
            self._discards = (*self._discards, self._accessors.index(acc))

    def _set_action(self, action: Any) -> None:
        if self._action is not None:
            raise _two_actions()
        self._action = action

    def _submit(self) -> event:
        """Hand the finished command group to the scheduler (``queue.submit``)."""
        action = self._action
        lane = self._lane
        assert lane is not None  # a graph's handler records instead
        owners = None if self._owning is None else held_only_by(self._owning)
        if type(action) is Shape:
            op = launch(action, self, self._depends, owners)
        elif type(action) is HostCopy and action.shape is not None:
            op = copy_shaped(action.shape, action.host, self._depends, owners)
        else:
            op = submit(lane, self._final_action(), self._requirements, self._depends, owners)
        return event_of(op, self._context)

    def _final_action(self) -> Any:
        """The command group's action as the scheduler or a command graph takes it (a barrier
        for none)."""
        action = self._action
        if action is None:
            return Barrier()
        if type(action) is Shape:
            return action.action(self._call, False)
        return action


_NOTHING: Mapping[Any, Any] = MappingProxyType({})


class _Settings:
    """What a command group sets besides its accessors and action: the commands it depends on;
    for its kernel, arguments (``set_arg``), a kernel bundle, specialization constants; the
    member that set the action, where its type does not say; an executable graph's
    requirements."""

    __slots__ = ("args", "bundle", "depends", "member", "replayed", "spec_constants")

    def __init__(self) -> None:
        self.depends: Sequence[Command] = ()
        self.replayed: Sequence[Requirement] = ()
        self.args: Mapping[int, Any] = _NOTHING
        self.bundle: Any = None
        self.spec_constants: Mapping[Any, Any] = _NOTHING
        self.member: str | None = None


class Origin(Protocol):
    """Where a command group goes (``handler._origin``): a queue, or a command graph's
    ``GraphOrigin``."""

    @property
    def _lane(self) -> Lane | None: ...
    @property
    def _context(self) -> context: ...
    @property
    def _device(self) -> device: ...
    @property
    def _rounding(self) -> bool: ...


class GraphOrigin:
    """The ``Origin`` of a command graph's node: no lane, the graph's context and device; its
    range launches round as a new queue's would (``range_launch.enabled_by_default``)."""

    __slots__ = ("_context", "_device", "_lane", "_rounding")

    def __init__(self, ctx: context, dev: device) -> None:
        self._lane = None
        self._context = ctx
        self._device = dev
        self._rounding = enabled_by_default()


_DEFAULTS = _Settings()  # of a command group that set none; never changed
_DEVICE = target.device
_HOST_TASK = target.host_task  # read per accessor: a module constant costs less than the enum's lookup


def make_handler(where: Origin) -> handler:
    """The handler of a new command group for ``where`` (a queue, or a command graph's
    ``GraphOrigin``): the one way a handler is made. A function, not a classmethod or an
    ``__init__``: either call costs twice as much, on every submit."""
    h = handler()
    h._origin = where
    h._accessors = []
    h._owning = None
    h._discards = ()
    h._action = None
    h._settings = None
    return h


def event_commands(events: event | Iterable[event]) -> list[Command]:
    """The commands of ``depends_on``'s events (an event or an iterable of events).

    Raises:
        sycl.exception: ``errc.invalid`` for anything but ``sycl.event`` objects.
    """
    return [ev._cmd for ev in event_list(events, "depends_on")]


def _sizes(rng: Any) -> tuple[Any, ...]:
    """The global and local sizes and the offset of a launch over ``rng`` (a range, an int, a
    sequence of ints, or an nd_range, which alone has a local size and an offset)."""
    if isinstance(rng, nd_range):
        offset = rng.get_offset()
        return (rng.get_global_range().to_cl(), rng.get_local_range().to_cl(),
                offset.to_cl() if any(offset) else None)
    return (global_size(rng), None, None)


def global_size(rng: Any) -> tuple[int, ...]:
    """A ``range`` (or an int, or a sequence of ints) as an OpenCL global size."""
    if type(rng) is int and 0 <= rng < SIZE_END:  # the common 1-D case, without a range
        return (rng,)
    if type(rng) is range:
        return rng._cl
    return as_range(rng).to_cl()


def kernel_args(
    args: tuple[Any, ...], context_handle: int, grouped: bool, accessors: list[accessor] | None,
) -> tuple[Sequence[Any], tuple[int, ...], int]:
    """The arguments as the kernel receives them, the indices of the accessors, and the bits of
    the arguments that are SVM pointers (``kernel._for_svm``) (§4.9.4.2).

    A USM pointer becomes its SVM pointer and a ``local_accessor`` its local memory; an
    accessor (of ``accessors``, the command group's) becomes its requirement, which the
    scheduler turns into the ``cl_mem`` of its window (the returned indices say where).

    Raises:
        sycl.exception: ``errc.accessor`` for an accessor not in ``accessors``;
            ``errc.kernel_argument`` for a ``local_accessor`` outside an nd_range or a
            ``pyopencl.Buffer`` of another context.
    """
    memory: list[Any] | None = None
    bound: list[int] | None = None
    svm_args = 0
    for index, arg in enumerate(args):
        kind = type(arg)
        if kind is accessor or kind in IMAGE_ACCESSORS:
            if accessors is None or arg not in accessors:
                raise _not_mine(arg)
            value: Any = arg._win.req
            if bound is None:
                bound = [index]
            else:
                bound.append(index)
        elif kind is usm_ptr:
            a = arg._alloc
            value = a.native  # the common case: the start of a live allocation of the context
            if value is None or arg._offset or a.ctx_handle != context_handle:
                value = arg._in(context_handle, "a kernel argument")
            svm_args |= 1 << index
        elif kind is local_accessor:
            if not grouped:
                raise _no_work_groups(index)
            value = arg._mem
        else:
            if kind is cl.Buffer and arg.get_info(cl.mem_info.CONTEXT).int_ptr != context_handle:
                raise _foreign_buffer(index)
            continue
        if memory is None:
            memory = list(args)
        memory[index] = value
    if memory is None:
        return args, (), 0
    return memory, () if bound is None else tuple(bound), svm_args


def _signature(args: tuple[Any, ...]) -> tuple[Any, ...] | None:
    """The signature of a shape (``scheduler.Shape``) launching ``args``, None if they have none:
    the requirement of each accessor, the type of each scalar."""
    signature: list[Any] = []
    for arg in args:
        if type(arg) is accessor and arg._win.shared:
            signature.append(arg._win.req)
        elif isinstance(arg, FIXED_VALUES):  # its type alone decides its checks
            signature.append(type(arg))
        else:
            return None
    return tuple(signature)


def _two_actions() -> exception:
    """A second action in one command group: ``errc.invalid`` (§4.9.3)."""
    return exception(
        errc.invalid,
        "a command group holds exactly one action (kernel, copy, fill, host task); "
        "submit another command group for the next one",
    )


def _not_mine(acc: accessor) -> exception:
    return exception(
        errc.accessor,
        f"{acc!r} is not part of this command group: make it with this handler, or "
        "bind a placeholder with h.require(acc)",
    )


def _foreign_buffer(index: int) -> exception:
    return exception(
        errc.kernel_argument,
        f"argument {index} is a pyopencl.Buffer of another context than the queue's; make it in "
        "the queue's context (q.get_context().get_native()) or copy its data to a sycl.buffer",
    )


def _takes_interop_handle(fn: Callable[..., Any]) -> bool:
    """Whether ``fn`` takes one required positional parameter (then ``fn(ih)``), not none."""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):  # a builtin without a signature: called as fn()
        return False
    required = [p for p in params if p.kind in _POSITIONAL and p.default is p.empty]
    if len(required) > 1:
        raise exception(
            errc.invalid,
            f"host_task calls fn() or fn(interop_handle), but {fn!r} needs {len(required)} "
            "arguments",
        )
    return bool(required)


_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


def _no_work_groups(index: int) -> exception:
    return exception(
        errc.kernel_argument,
        f"argument {index} is a local_accessor, but single_task and parallel_for over a range "
        "have no work-groups to share local memory (§4.7.6.11); launch over a sycl.nd_range",
    )


def _copy_counts(src: Any, dst: Any) -> tuple[int, int]:
    """``(n, room)`` of ``handler.copy``: the elements it copies, from the start of each end
    (the source accessor's range, or the destination accessor's and no more than the array
    gives), and the room the destination has; ``n`` -1 for ends it cannot copy between."""
    if isinstance(src, accessor):
        room = dst.size if isinstance(dst, np.ndarray) else dst.size() if isinstance(dst, accessor) else -1
        return src.size(), room
    if isinstance(dst, accessor) and isinstance(src, np.ndarray):
        return min(src.size, dst.size()), dst.size()
    return -1, 0


def matched_copy(src: Any, dst: Any, lane: Lane | None) -> tuple[accessor, CopyShape] | None:
    """The device accessor and the copy shape (rule S32) of ``handler.copy(src, dst)`` on
    ``lane``, where one end is a device accessor whose window keeps a shape of that lane and
    direction (``handler._copy_shape``: its checks passed then, and they depend on nothing
    else) and the other an array the shape takes as it is (``CopyShape.matches``); None: the
    copy is checked in full."""
    if type(src) is accessor:
        acc, host, to_host = src, dst, True
    elif type(dst) is accessor:
        acc, host, to_host = dst, src, False
    else:
        return None
    shapes: dict[Any, Any] = acc._win.shapes
    shape: CopyShape | None = shapes.get(copy_key(lane, to_host))
    kind = acc._kind
    if (shape is None or kind[0] is not _DEVICE or not shape.matches(host)
            or (kind[1] and not acc._buf._alive)):  # a destroyed buffer's: checked in full, refused
        return None
    return acc, shape


def _copy_on_host(src: Any, dst: Any, n: int) -> None:
    source = (src._view() if isinstance(src, accessor) else np.asarray(src)).reshape(-1)
    target = dst._view() if isinstance(dst, accessor) else dst
    target.flat[:n] = source[:n]


def _ordered_args(args: Mapping[int, Any]) -> tuple[Any, ...]:
    if not args:
        return ()
    missing = [i for i in builtins.range(max(args) + 1) if i not in args]
    if missing:
        raise exception(
            errc.kernel_argument,
            f"kernel arguments {missing} were never set; call set_arg for each index",
        )
    return tuple(args[i] for i in sorted(args))
