"""Accessors (SYCL 2020 §4.7.6): ``accessor``, ``host_accessor``, ``local_accessor``.

An accessor is a requirement on a byte window of a buffer's memory object: constructing one
with a handler adds it to the command group (used or not). A device accessor becomes the
kernel argument ``__global T*`` pointing at its first element; inside a host task
``numpy.asarray(acc)`` is a view of its range on the host. A ``host_accessor`` blocks until the
data is on the host and holds back later users of its window until released.
"""

from __future__ import annotations

import math
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from functools import partial, wraps
from typing import TYPE_CHECKING, Any

import numpy as np
import pyopencl as cl

from ._buffer import buffer, element_type
from ._exception import errc, exception
from ._exchange import HostExport
from ._range import as_id, as_range, check_inside, contiguous, id, linear, range
from .access import access_mode, as_mode, mode_tag_t, resolve_no_init, target
from .property._base import (
    PropertyHolder,
    is_property_list_like,
    make_property_list,
    property_list,
    trailing_property_list,
)
from .property.accessor import no_init
from .scheduler import Requirement, acquire_hold, finalize, release_hold, unwatch, watch

if TYPE_CHECKING:
    from ._handler import handler
    from .scheduler import Op, Shape


_ZERO = {n: id(*([0] * n)) for n in (1, 2, 3)}
_HOST_TASK = target.host_task
_DEVICE = target.device
_NO_PROPERTIES = property_list()
_MODE_TYPES = (access_mode, mode_tag_t)
_BOUND = (_DEVICE, False)  # the kind of a device accessor made with a handler
_KEPT_WINDOWS = 16  # ranged or no_init windows a buffer keeps (``window``)
_host_task = threading.local()  # .bodies: how many host task bodies run on this thread


def host_task_body(fn: Callable[[], Any]) -> Callable[[], Any]:
    """``fn``, the body of a host task, as it runs: device accessors are host-accessible
    inside it only (§4.7.6.9; docs/data-movement.md). It keeps ``fn``'s name (traces)."""

    @wraps(fn)
    def body() -> Any:
        _host_task.bodies = getattr(_host_task, "bodies", 0) + 1
        try:
            return fn()
        finally:
            _host_task.bodies -= 1

    return body


class _Window(PropertyHolder):
    """What an accessor reaches of a buffer, and how (§4.7.6.9): range, offset, element type,
    mode, properties, and the requirement of its byte span.

    Immutable, so accessors share it: a buffer keeps the window of each mode for its
    whole-buffer accessors (``buffer._windows``), which the submit path takes as it is.
    """

    __slots__ = ("_props", "aligned", "base", "contiguous", "dtype", "mode", "no_init", "offset", "range",
                 "req", "shape", "shapes", "shared", "sub_base", "writes")

    _props: property_list
    aligned: Any  # a sub-buffer's: the last device its start was found aligned for (``_check_alignment``)
    base: int  # the buffer's first byte in its memory object
    contiguous: bool
    dtype: np.dtype[Any]
    mode: access_mode
    no_init: bool
    offset: id
    range: range
    req: Requirement
    shape: tuple[int, ...]  # the buffer's
    shared: bool  # kept by the buffer: its requirement is the same object in every accessor
    # The launches of command groups whose first accessor it is, by kernel (``scheduler.Shape``,
    # made by the handler where ``shared``); they keep their other memory objects alive.
    shapes: dict[Any, Shape]
    sub_base: int  # the first byte of a sub-buffer, 0 for any other buffer
    writes: bool


def window(buf: buffer, mode: Any, access_range: Any, access_offset: Any, prop_list: Any,
           owner: str) -> _Window:
    """The window of an accessor of ``buf`` (``owner``: the accessor's class, for errors).

    The buffer keeps its windows by mode, range, offset and ``no_init`` (``_window_key``), so
    that accessors of one kind share a window and its requirement: the submit path knows a
    command group it launched before by those (``scheduler.Shape``, rule S17 of
    docs/scheduler.md), ranged and ``no_init`` accessors as well as whole-buffer ones.

    Raises:
        sycl.exception: ``errc.invalid`` for a destroyed buffer, an unknown mode, a range
            outside the buffer or ``no_init`` with a read mode.
    """
    if not isinstance(buf, buffer):
        raise exception(errc.invalid, f"an accessor is made over a sycl.buffer, got {buf!r}")
    buf._check_alive()
    whole = access_range is None and access_offset is None and prop_list is None
    if whole and type(mode) in _MODE_TYPES:
        found = buf._windows.get(mode)
        if found is not None:
            return found
        # The whole buffer (a sub-buffer too: contiguous in its parent) needs no span checks.
        win = _new_window(buf, mode, buf._range, _ZERO[len(buf._shape)], _NO_PROPERTIES,
                          (buf._base, buf._base + buf._nbytes), True, True)
        buf._windows[mode] = win
        return win
    props = _NO_PROPERTIES if prop_list is None else make_property_list(prop_list, owner)
    shape = buf._shape
    rng = buf._range if access_range is None else as_range(access_range)
    off = _ZERO[len(shape)] if access_offset is None else as_id(access_offset, len(shape))
    key = _window_key(buf, mode, rng, off, props)
    if key is not None:
        found = buf._windows.get(key)
        if found is not None:
            return found
    win = _new_window(buf, mode, rng, off, props, _span(buf, rng, off), contiguous(rng.to_tuple(), shape),
                      key is not None)
    if key is not None:
        _keep(buf._windows, key, win)
    return win


def _cpp_order(mode: Any, access_range: Any, access_offset: Any, prop_list: Any,
               owner: str) -> tuple[Any, Any, Any, Any]:
    """The arguments with a property list given where C++ takes it (after the mode, range or
    offset given: ``accessor(buf, h, sycl.write_only, sycl.property.no_init())``) moved to
    ``prop_list``; a mode left out is ``read_write``."""
    (mode, access_range, access_offset), prop_list = trailing_property_list(
        (mode, access_range, access_offset), prop_list, owner)
    return (access_mode.read_write if mode is None else mode), access_range, access_offset, prop_list


def _new_window(buf: buffer, mode: Any, rng: range, off: id, props: property_list, span: tuple[int, int],
                is_contiguous: bool, shared: bool) -> _Window:
    """A window of ``buf`` over the byte ``span`` (checked inside the buffer)."""
    win = _Window()
    win.shared = shared
    win.shapes = {}
    win.mode, win.no_init = resolve_no_init(as_mode(mode), props.has_property(no_init))
    win._props = props
    win.writes = win.mode.writes
    win.base = buf._base
    win.sub_base = buf._base if buf._sub else 0
    win.aligned = None
    win.shape = buf._shape
    win.dtype = buf._dtype
    win.range, win.offset = rng, off
    win.contiguous = is_contiguous
    # A discard of a non-contiguous window cannot skip the copy-in: its span has gaps.
    needs_old = win.mode.reads or not (win.no_init and is_contiguous)
    win.req = Requirement(buf._root, *span, win.writes, needs_old, buf._base, buf._base + buf._nbytes)
    return win


def _window_key(buf: buffer, mode: Any, rng: range, off: id, props: property_list) -> Any:
    """The key ``buf`` keeps the window under: the mode alone for the whole buffer without
    properties (the key the submit path looks up), else (mode, range, offset, no_init);
    None for a window not kept (a property besides ``no_init``, a mode given as no mode)."""
    init = props.has_property(no_init)
    if type(mode) not in _MODE_TYPES or len(props) != (1 if init else 0):
        return None
    start = off.to_tuple()
    if not init and rng == buf._range and not any(start):
        return mode
    return (mode, rng.to_tuple(), start, init)


def _kept_key(mode: Any, rng: Any, off: Any) -> Any:
    """The key a buffer keeps the window of a ranged accessor without properties under
    (``_window_key``), given a ``range`` and an ``id`` (or no offset); else None, a key no
    window has. Not checked against the buffer: only a window made from valid arguments is
    kept under it."""
    if type(rng) is not range:
        return None
    if off is None:
        return (mode, rng._v, _ZERO[len(rng._v)]._v, False)
    return (mode, rng._v, off._v, False) if type(off) is id else None


def _kept_window(buf: Any, mode: Any, rng: Any, off: Any) -> _Window | None:
    """The window ``buf`` kept for an accessor of ``mode`` over ``rng`` at ``off`` without
    properties (the whole buffer's for no range and offset, ``_kept_key``), taken as it is:
    it passed its checks when made, and a destroyed buffer keeps none; None where there is
    none, or the arguments are of other kinds (``window`` then checks them)."""
    try:
        return buf._windows.get(mode if rng is None and off is None else _kept_key(mode, rng, off))
    except (AttributeError, TypeError):  # not a buffer; an unhashable mode
        return None


def _keep(windows: dict[Any, _Window], key: Any, win: _Window) -> None:
    """Keep ``win`` under ``key``; past ``_KEPT_WINDOWS`` ranged windows, the oldest goes (a
    loop over many tiles of one buffer must not grow it without bound)."""
    windows[key] = win
    ranged = [k for k in list(windows) if type(k) is tuple]  # list(): one step, safe from other threads
    if len(ranged) > _KEPT_WINDOWS:
        windows.pop(ranged[0], None)  # another thread may have dropped it already


def _span(buf: buffer, rng: range, off: id) -> tuple[int, int]:
    """The byte span of ``rng`` at ``off`` in ``buf``; ``errc.invalid`` outside the buffer."""
    shape = buf._shape
    check_inside(off, rng, buf._range, "the access range and offset",
                 "access range {rng} at offset {index} exceeds the buffer range {whole}")
    size = buf._dtype.itemsize
    first = buf._base + linear(off.to_tuple(), shape) * size
    if not rng.size():
        return first, first
    last = linear(tuple(o + r - 1 for o, r in zip(off, rng, strict=False)), shape)
    return first, buf._base + (last + 1) * size


class _Access(HostExport):
    """What device and host accessors share: their window of the buffer (§4.7.6.9), and the
    zero-copy exports of their host view (``HostExport``: DLPack, the buffer protocol, the
    array interface), which go through ``__array__``."""

    __slots__ = ("_win",)

    _win: _Window

    @property
    def dtype(self) -> np.dtype[Any]:
        """The element type (``value_type``, §4.7.6.9), a numpy dtype."""
        return self._win.dtype

    def _view(self) -> np.ndarray:
        """The accessed range in the buffer's host copy."""
        win = self._win
        req = win.req
        if win.contiguous and req.lo < req.hi:  # its byte span, as the range's shape
            view = req.memory.host_copy()[req.lo:req.hi].view(win.dtype).reshape(win.range._v)
        else:
            nbytes = math.prod(win.shape) * win.dtype.itemsize
            whole = req.memory.host_copy()[win.base:win.base + nbytes]
            arr = whole.view(win.dtype).reshape(win.shape)
            view = arr[tuple(slice(o, o + r) for o, r in zip(win.offset, win.range, strict=False))]
        if not win.writes:
            view = view.view()
            view.flags.writeable = False
        return view

    def has_property(self, cls: type[Any]) -> bool:
        """Whether the accessor was constructed with a property of this class (§4.5.4.1)."""
        return self._win.has_property(cls)

    def get_property(self, cls: type[Any]) -> Any:
        """The property of this class; ``errc.invalid`` if absent (§4.5.4.1)."""
        return self._win.get_property(cls)

    def get_range(self) -> range:
        """The accessed range (§4.7.6.9)."""
        return self._win.range

    def get_offset(self) -> id:
        """The offset of the accessed range in the buffer (§4.7.6.9)."""
        return self._win.offset

    def size(self) -> int:
        """The number of accessed elements (§4.7.6.9)."""
        return self._win.range.size()

    def byte_size(self) -> int:
        """The accessed size in bytes (§4.7.6.9)."""
        return self._win.range.size() * self.dtype.itemsize

    def empty(self) -> bool:
        """Whether the accessor accesses no element (§4.7.6.9)."""
        return self._win.range.size() == 0

    def max_size(self) -> int:
        """The most elements an accessor of this element type can access (§4.7.6.9)."""
        return max_elements(self.dtype)

    def get_count(self) -> int:
        """Deprecated alias of ``size()`` (§4.7.6.9)."""
        return self.size()

    def get_size(self) -> int:
        """Deprecated alias of ``byte_size()`` (§4.7.6.9)."""
        return self.byte_size()

    @property
    def mode(self) -> access_mode:
        """The access mode, a template argument in SYCL (``no_init`` is reported by ``has_property``)."""
        return self._win.mode

    def __repr__(self) -> str:
        return self._describe(type(self).__name__, self._win)

    @staticmethod
    def _describe(kind: str, win: _Window) -> str:
        return f"<sycl.{kind} {win.mode.name} {win.range} at {win.offset}>"


class _Name:
    """An accessor's name in the scheduler's messages (``acquire_hold``), written only where
    one is: a repr on every host accessor would cost a tenth of a small one. It holds the
    window, not the accessor, so a dropped accessor still ends."""

    __slots__ = ("_cls", "_win")

    def __init__(self, cls: type[_Access], win: _Window) -> None:
        self._cls, self._win = cls, win

    def __str__(self) -> str:
        return self._cls._describe(self._cls.__name__, self._win)


def max_elements(dtype: np.dtype[Any]) -> int:
    """The most elements of ``dtype`` whose bytes a signed 64-bit offset (``difference_type``)
    can span: an accessor's ``max_size()``."""
    return (2**63 - 1) // dtype.itemsize


def _check_writes(acc: _Access) -> None:
    """``errc.accessor`` for a write through an accessor of a mode that does not write."""
    if not acc._win.writes:
        raise exception(
            errc.accessor,
            f"{acc!r} is read_only: it cannot be written; make it with sycl.read_write or sycl.write_only",
        )


class accessor(_Access):
    """A device accessor (§4.7.6.9): a kernel argument, or a host-task view.

    It shares ownership of its buffer, as in C++: a buffer that only accessors hold
    (``sycl.accessor(sycl.buffer(a), h)``, a placeholder's) lives until their commands
    complete, then is written back, by ``queue.wait()`` of their queue at the latest
    (docs/data-movement.md).

    Args:
        buf: the buffer.
        h: the command group's handler; without it the accessor is a placeholder, bound to
            a command group with ``h.require(acc)``.
        mode: an ``access_mode`` or a tag (``sycl.read_only``, ``sycl.write_only``,
            ``sycl.read_write``).
        access_range, access_offset: a ranged accessor (element units).
        prop_list: ``sycl.property.no_init()``.

    Raises:
        sycl.exception: ``errc.invalid`` for a range outside the buffer, ``no_init`` with a
            read mode, or a sub-buffer misaligned for the queue's device.
    """

    __slots__ = ("_buf", "_kind")

    _kind: tuple[target, bool]  # (its target, whether a placeholder): shared where it can be (_BOUND)
    # A placeholder's buffer: it shares ownership of it, as in C++ (``accessor(sycl.buffer(a))``);
    # a command group holds the buffers of its other accessors (``handler._register``).
    _buf: buffer

    def __init__(
        self,
        buf: buffer,
        h: handler | None = None,
        mode: Any = access_mode.read_write,
        access_range: Any = None,
        access_offset: Any = None,
        prop_list: Any = None,
        target: target = _DEVICE,
    ) -> None:
        if prop_list is None and target is _DEVICE:
            # The submit path: a device accessor of a command group takes the window its
            # buffer kept for it as it is (``window``): the whole buffer's for the mode, or a
            # ranged one's (a ``range`` and an ``id``, rule S32). Anything else (a placeholder,
            # a mode given in h's place, a first accessor of its kind, a destroyed buffer,
            # something not a buffer) takes the full way below.
            # Nothing to check, so it joins the command group itself (``handler._accessors``)
            # and, as a window kept, holds nothing (rule S29); an error here means h is no handler.
            try:
                win = buf._windows[mode if access_range is None and access_offset is None
                                   else _kept_key(mode, access_range, access_offset)]
                # A sub-buffer's alignment is checked below, once per device (``_check_alignment``).
                if not win.sub_base or win.aligned is h._origin._device:  # type: ignore[union-attr]
                    self._win = win
                    self._kind = _BOUND
                    h._accessors.append(self)  # type: ignore[union-attr]
                    return
            except (AttributeError, KeyError, TypeError):
                pass
        if type(h) in _MODE_TYPES or is_property_list_like(h):
            # accessor(buf, sycl.read_only[, range[, offset]][, propList]): a placeholder with its
            # mode (or its property list) in h's place; what follows it moves along one place.
            if type(mode) is range or is_property_list_like(mode):
                access_range, access_offset, prop_list = mode, access_range, access_offset or prop_list
            h, mode = None, h
        mode, access_range, access_offset, prop_list = _cpp_order(
            mode, access_range, access_offset, prop_list, "accessor")
        self._win = win = window(buf, mode, access_range, access_offset, prop_list, "accessor")
        self._kind = _BOUND if target is _DEVICE and h is not None else (target, h is None)
        if h is None:
            self._buf = buf
        else:
            h._register(self, buf)

    def is_placeholder(self) -> bool:
        """Whether the accessor was made without a handler (§4.7.6.9)."""
        return self._kind[1]

    def get_target(self) -> target:
        """The accessor's target (§4.7.6.9)."""
        return self._kind[0]

    def _check_alignment(self, dev: Any) -> None:
        """``errc.invalid`` for a sub-buffer misaligned for ``dev`` (§4.7.2.1)."""
        base = self._win.sub_base
        align = dev._native.mem_base_addr_align // 8
        if base and base % align:
            raise exception(
                errc.invalid,
                f"the sub-buffer starts at byte {base}, not a multiple of the device's "
                f"mem_base_addr_align ({align} bytes); choose a base index on that alignment",
            )
        self._win.aligned = dev  # the submit path takes the window as it is on this device

    # --- host-task view --------------------------------------------------------------------

    def _host_view(self) -> np.ndarray:
        """The host-task view; ``errc.accessor`` outside a host task's body, where the host
        copy is not current (the commands of the group may not have run, or ran since) and
        writes would bypass the runtime."""
        if not getattr(_host_task, "bodies", 0):
            raise exception(
                errc.accessor,
                f"{self!r} is a device accessor: it is host-accessible only inside the body of "
                "a host task; on the host, use sycl.host_accessor(buf)",
            )
        return self._view()

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        view = self._host_view()
        return view if dtype is None else view.astype(dtype)

    def __getitem__(self, index: Any) -> Any:
        return self._host_view()[index]

    def __setitem__(self, index: Any, value: Any) -> None:
        _check_writes(self)
        self._host_view()[index] = value



class host_accessor(_Access):
    """Host access to a buffer (§4.7.6.10): blocks until the data is on the host.

    ``numpy.asarray(acc)`` is a view of exactly the accessed range; ``acc[i]`` / ``acc[i, j]``
    index relative to the offset. Use it as a context manager: later commands on the buffer
    wait until the ``with`` block ends (or ``release()``, or the accessor is garbage
    collected). That is the accessor's destruction: it lets go of the buffer, and any later
    use of the accessor raises ``errc.accessor``, as does use after the buffer's destruction
    ended it.

    Args:
        buf: the buffer.
        mode: ``sycl.read_only``, ``sycl.write_only`` or ``sycl.read_write`` (the default), or
            an ``access_mode``.
        access_range, access_offset: a ranged accessor (element units).
        prop_list: ``sycl.property.no_init()`` (the old contents need not be read back).

    Raises:
        sycl.exception: ``errc.invalid`` for a range outside the buffer or ``no_init`` with a
            read mode, or where it would wait for a command that waits for a host accessor this
            thread holds open (docs/scheduler.md rule S22); the driver's error when reading
            the data back from a device fails. A failed command it waited for reports to its
            own queue, not here.

    Example::

        with sycl.host_accessor(buf, sycl.read_only) as acc:
            print(numpy.asarray(acc).sum())
    """

    __slots__ = ("__weakref__", "_array", "_buf", "_hold", "_refs")

    def __init__(
        self,
        buf: buffer,
        mode: Any = access_mode.read_write,
        access_range: Any = None,
        access_offset: Any = None,
        prop_list: Any = None,
    ) -> None:
        self._hold: Op | None = None
        self._array: np.ndarray | None = None
        self._refs = 0  # interrupted before its view was counted: any view counts as kept
        win = None if prop_list is not None else _kept_window(buf, mode, access_range, access_offset)
        if win is None:
            mode, access_range, access_offset, prop_list = _cpp_order(
                mode, access_range, access_offset, prop_list, "host_accessor")
            win = window(buf, mode, access_range, access_offset, prop_list, "host_accessor")
        self._win = win
        # Shares ownership of the buffer (as DPC++ does): ``host_accessor(buffer(a))`` stays valid.
        self._buf: buffer | None = buf
        self._hold = hold = acquire_hold(win.req, _Name(type(self), win))
        watch(self, partial(release_hold, win.req.memory, hold))  # rule S26
        if win.writes:  # its views counted (rule S30); a read-only view cannot write to the buffer
            self._array = _own_base(self._view())
            self._refs = _references(self)
        else:
            self._array = self._view()

    def release(self) -> None:
        """End the access and let go of the buffer: later commands on the buffer may run (the
        destructor of §4.7.6.10; ``with`` calls it). The accessor is unusable from then on.
        A writable view of it kept past here (``numpy.asarray(acc)``, a slice of it, a DLPack
        or buffer export) is the buffer's memory no more: the buffer takes a host copy of its
        own, so that a write through the view reaches neither a later command nor the
        write-back (docs/scheduler.md rule S30)."""
        hold = self._hold
        if hold is not None:  # first: interrupted before it ended, the hold stays to release (rule S26)
            exposed = self._win.writes and self._array is not None and _references(self) != self._refs
            unwatch(self)
            release_hold(self._win.req.memory, hold, exposed)
        self._hold = self._array = None
        self._buf = None  # last: dropping the buffer's last handle here writes it back

    def _live(self) -> np.ndarray:
        """The view, while the access lasts; ``errc.accessor`` once released or ended by the
        buffer's destruction (the memory it exposed is no longer the buffer's)."""
        hold = self._hold
        if hold is None or hold.poll():
            raise exception(
                errc.accessor,
                f"{self!r} was released (its with block ended, release() was called, or its buffer "
                "was destroyed); make a new host_accessor to reach the buffer's data",
            )
        return self._array  # type: ignore[return-value]  # set while held

    def __enter__(self) -> host_accessor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()

    def __del__(self) -> None:
        if getattr(self, "_hold", None) is not None:
            finalize(self.release, "ending a host accessor")

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        array = self._live()
        return array if dtype is None else array.astype(dtype)

    def __getitem__(self, index: Any) -> Any:
        return self._live()[index]

    def __setitem__(self, index: Any, value: Any) -> None:
        _check_writes(self)
        self._live()[index] = value

    def __len__(self) -> int:
        return len(self._live())

    def __iter__(self) -> Iterator[Any]:
        return iter(self._live())



def _own_base(view: np.ndarray) -> np.ndarray:
    """``view`` over a base of its own (a memoryview), which every view numpy derives from it
    references: ``_references`` then counts those kept (numpy's views otherwise name the
    array that owns the memory, shared by every accessor). A dtype the buffer protocol cannot
    carry keeps ``view``, whose exports then go uncounted but for itself."""
    try:
        return np.asarray(memoryview(view))  # type: ignore[arg-type]  # an ndarray has the buffer protocol
    except (TypeError, ValueError, BufferError):
        return view


def _references(acc: host_accessor) -> int:
    """The references to a host accessor's view and its base: more at its release than at its
    construction, and a view of it outlives the access (``release``)."""
    array: np.ndarray = acc._array  # type: ignore[assignment]  # set while held
    return sys.getrefcount(array) + sys.getrefcount(array.base)


class local_accessor(PropertyHolder):
    """Work-group local memory for an nd_range kernel (§4.7.6.11): ``__local T*`` argument.

    Args:
        dtype: the element type.
        rng: the number of elements per work-group.
        h: the command group's handler.
        prop_list: a ``sycl.property_list`` or a list of properties (§4.5.4); SYCL 2020 defines
            none for a local accessor, so any property raises ``errc.invalid``.

    Raises:
        sycl.exception: ``errc.invalid`` for an element type that is no plain data or a
            negative range. A launch checks that its local memory fits the device
            (``errc.kernel_argument``, docs/errors.md).
    """

    __slots__ = ("_dtype", "_mem", "_props", "_range")

    def __init__(
        self, dtype: Any, rng: Any, h: handler | None = None,
        prop_list: property_list | Iterable[Any] | None = None,
    ) -> None:
        self._props = _NO_PROPERTIES if prop_list is None else make_property_list(prop_list, "local_accessor")
        self._dtype = element_type(dtype)
        self._range = as_range(rng)
        self._mem = cl.LocalMemory(max(self._range.size() * self._dtype.itemsize, 1))

    def get_range(self) -> range:
        """The range per work-group (§4.7.6.11)."""
        return self._range

    def size(self) -> int:
        """The number of elements per work-group (§4.7.6.11)."""
        return self._range.size()

    def byte_size(self) -> int:
        """The size in bytes per work-group (§4.7.6.11)."""
        return self._range.size() * self._dtype.itemsize

    def empty(self) -> bool:
        """Whether the range per work-group holds no element (§4.7.6.11)."""
        return self._range.size() == 0

    def max_size(self) -> int:
        """The most elements a local accessor of this element type can hold (§4.7.6.11)."""
        return max_elements(self._dtype)

    def __repr__(self) -> str:
        return f"<sycl.local_accessor {self._range} of {self._dtype}>"
