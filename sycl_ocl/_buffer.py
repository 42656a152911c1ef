"""``sycl::buffer`` (SYCL 2020 §4.7.2) and its OpenCL interop.

A ``buffer`` is a user handle over a memory object (``scheduler.memory_object.MemoryObject``). Every handle
(the buffer, its ``reinterpret`` views and sub-buffers) counts; when the last one goes (the
``with`` block ends, or the last reference is dropped), the destruction rules of §4.7.2.3
run: wait for the work on it, then write back when there is host memory to write to.
"""

from __future__ import annotations

import sys
import threading
import weakref
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import numpy as np
import pyopencl as cl

from ._exception import errc, exception
from ._memory_handle import MemoryHandle
from ._range import as_id, as_range, check_inside, contiguous, linear, range
from .access import access_mode, as_mode
from .property import buffer as buffer_props
from .property._base import make_property_list, property_list, trailing_property_list
from .scheduler import (
    MemoryObject,
    TransferCounters,
    add_handle,
    adopt,
    may_call_user,
    native_buffers,
    own,
    set_final_data,
    set_write_back,
    writeable_alias,
)

if TYPE_CHECKING:
    from ._accessor import accessor, host_accessor
    from ._context import context
    from ._handler import handler


class buffer(MemoryHandle):
    """A memory object shared by the host and the devices (§4.7.2).

    The forms of the constructor:

    - ``buffer(host_array, prop_list=None)``: dimensions and dtype from the array; a
      writeable array is read-only while the buffer owns it and written back at
      destruction, a read-only one is not written back.
    - ``buffer(host_array, range)``: the first ``range.size()`` elements, shaped as ``range``.
    - ``buffer(range, dtype)``: no host memory.
    - ``buffer(iterable, dtype=...)``: a copy of the values, never written back.
    - ``buffer(host_object)``: an object with the buffer protocol or DLPack (a torch CPU
      tensor) is taken as the numpy view of its memory, without a copy.
    - ``buffer(parent, base_index, sub_range)``: a sub-buffer (§4.7.2.1).

    ``prop_list`` takes ``sycl.property.buffer.use_host_ptr()``, ``context_bound(ctx)`` and
    ``use_mutex(lock)``. As a context manager, leaving the ``with`` block runs the
    destruction rules of §4.7.2.3: wait for the commands on the buffer, then write back.

    Raises:
        sycl.exception: ``errc.invalid`` for a dtype that is not plain data, a host array
            smaller than the range, a sub-buffer of a sub-buffer or outside its parent, a
            buffer used after its ``with`` block, and a ``with`` block's end that would wait
            for a command that waits for a host accessor this thread holds open (the buffer
            then stays alive; docs/scheduler.md rule S22).

    Example::

        data = numpy.arange(1024, dtype=numpy.float32)
        with sycl.buffer(data) as buf:        # data is written back when the block ends
            q.submit(lambda h: h.parallel_for(1024, "scale", sycl.accessor(buf, h), 2.0))
        tmp = sycl.buffer(sycl.range(64, 64), numpy.int32)   # device data, no host memory
    """

    __slots__ = ("__weakref__", "_base", "_dtype", "_nbytes", "_props", "_range", "_shape", "_sub")

    def __init__(
        self,
        data: Any,
        second: Any = None,
        third: Any = None,
        *,
        dtype: Any = None,
        prop_list: property_list | Iterable[Any] | None = None,
    ) -> None:
        if (second is not None or third is not None) and not isinstance(data, buffer):
            # buffer(data, [range,] propList), C++'s order
            (second, third), prop_list = trailing_property_list((second, third), prop_list, "buffer")
        self._props = make_property_list(prop_list, "buffer")
        self._sub = False
        self._base = 0
        if isinstance(data, buffer):
            self._init_sub(data, second, third)
        elif isinstance(data, range):
            self._init_range(data, dtype if dtype is not None else second)
        else:
            self._init_host(data, second, dtype)
        self._attach()

    # --- construction -------------------------------------------------------------------

    def _init_range(self, rng: range, dtype: Any) -> None:
        if dtype is None:
            raise exception(errc.invalid, "buffer(range, dtype): give the element type, e.g. numpy.float32")
        self._extent(rng, element_type(dtype))
        self._root = self._new_root(None, None)

    def _init_host(self, data: Any, rng: Any, dtype: Any) -> None:
        if data is None:
            if rng is None or as_range(rng).size():
                raise exception(
                    errc.invalid, "buffer(None, range): host data may be None only for zero elements"
                )
            self._init_range(as_range(rng), dtype or np.uint8)
            return
        array, writable = _host_array(writeable_alias(data), dtype)
        if rng is not None:
            rng = as_range(rng)
            if array.size < rng.size():
                raise exception(
                    errc.invalid,
                    f"the host data has {array.size} elements, fewer than the range {rng} needs",
                )
            array_view = array.reshape(-1)[: rng.size()] if array.flags.c_contiguous else None
        else:
            rng = range(*array.shape) if array.ndim else range(1)
            array_view = array
        self._extent(rng, array.dtype)
        if writable and array_view is not None and array_view.flags.c_contiguous:
            host = array_view.reshape(-1).view(np.uint8)  # SYCL owns the user's memory
            self._root = self._new_root(host, array_view)
        else:
            host = np.ascontiguousarray(array.reshape(-1)[: rng.size()]).view(np.uint8).copy()
            self._root = self._new_root(host, array if writable else None)
        if not writable and not isinstance(data, np.ndarray) and not _is_buffer_like(data):
            self._root.blocking = False  # an iterator copy: never written back, no blocking
        if writable and isinstance(data, np.ndarray):
            own(self._root, data)

    def _new_root(self, host: np.ndarray | None, user: Any) -> MemoryObject:
        nbytes = self._nbytes
        use_host_ptr = self._props.has_property(buffer_props.use_host_ptr)
        root = MemoryObject(nbytes, host.reshape(-1) if host is not None else None, user, use_host_ptr)
        root.dtype = self._dtype
        if self._props.has_property(buffer_props.context_bound):
            root.bound_to = self._props.get_property(buffer_props.context_bound).get_context()._handle
        if self._props.has_property(buffer_props.use_mutex):
            # The runtime holds the mutex while the buffer lives: the host data is in use.
            root.mutex = self._props.get_property(buffer_props.use_mutex).get_mutex_ptr()
            root.mutex.acquire()
        return root

    def _init_sub(self, parent: buffer, base_index: Any, sub_range: Any) -> None:
        parent._check_alive()
        if parent._sub:
            raise exception(
                errc.invalid, "a sub-buffer cannot be made from a sub-buffer (§4.7.2); use the parent"
            )
        shape = parent._range.to_tuple()
        if base_index is None or sub_range is None:
            raise exception(
                errc.invalid, "buffer(parent, base_index, sub_range) needs both an id and a range"
            )
        base = as_id(base_index, len(shape)).to_tuple()
        rng = as_range(sub_range)
        check_inside(base, rng, parent._range, "the sub-buffer's index and range",
                     "sub-buffer at {index} of range {rng} exceeds the parent range {whole}")
        if not contiguous(rng.to_tuple(), shape):
            raise exception(
                errc.invalid,
                f"sub-buffer at {base} of range {rng} is not contiguous in the parent {parent._range}; "
                "after its first dimension larger than 1, it must span whole rows",
            )
        self._props = parent._props
        self._extent(rng, parent._dtype)
        self._root = parent._root
        self._base = parent._base + linear(base, shape) * self._dtype.itemsize
        self._sub = True

    def _extent(self, rng: range, dtype: np.dtype[Any]) -> None:
        """Set the range and element type, and what the submit path reads of them."""
        self._range = rng
        self._dtype = dtype
        self._shape = rng.to_tuple()
        self._nbytes = rng.size() * dtype.itemsize
        # The windows of whole-buffer accessors by mode (``accessor.window``), while alive.
        self._windows: dict[Any, Any] = {}

    def _attach(self) -> None:
        self._alive = True
        self._token = add_handle(self._root)

    def __del__(self) -> None:
        if getattr(self, "_alive", False):
            _hand_on_to_command_group(self)
        super().__del__()

    # --- destruction (§4.7.2.3) ---------------------------------------------------------

    def __enter__(self) -> buffer:
        return self

    # --- members (§4.7.2.1) -------------------------------------------------------------

    @property
    def dtype(self) -> np.dtype[Any]:
        """The element type (``value_type``, §4.7.2.1), a numpy dtype."""
        return self._dtype

    def get_range(self) -> range:
        """The buffer's range (§4.7.2.1)."""
        return self._range

    def size(self) -> int:
        """The number of elements (§4.7.2.1)."""
        return self._range.size()

    def byte_size(self) -> int:
        """The size in bytes (§4.7.2.1)."""
        return self._nbytes

    def get_count(self) -> int:
        """Deprecated alias of ``size()`` (§4.7.2.1)."""
        return self.size()

    def get_size(self) -> int:
        """Deprecated alias of ``byte_size()`` (§4.7.2.1)."""
        return self.byte_size()

    def is_sub_buffer(self) -> bool:
        """Whether this is a sub-buffer (§4.7.2.1)."""
        return self._sub

    def get_access(
        self,
        h: handler | None = None,
        mode: Any = access_mode.read_write,
        access_range: Any = None,
        access_offset: Any = None,
        prop_list: Any = None,
    ) -> accessor:
        """``accessor(self, h, mode, ...)`` (§4.7.2.1)."""
        return _accessor.accessor(self, h, mode, access_range, access_offset, prop_list)

    def get_host_access(
        self, mode: Any = access_mode.read_write, access_range: Any = None,
        access_offset: Any = None, prop_list: Any = None,
    ) -> host_accessor:
        """``host_accessor(self, mode, ...)``: blocks until the data is on the host (§4.7.2.1)."""
        return _accessor.host_accessor(self, as_mode(mode), access_range, access_offset, prop_list)

    def set_final_data(self, final_data: Any = None) -> None:
        """Where the contents go at destruction: a writable array, a ``weakref.ref`` to one,
        or ``None`` for nowhere (§4.7.2.1)."""
        root = self._root
        target = final_data() if isinstance(final_data, weakref.ref) else final_data
        if target is not None:
            _check_final_data(target, root.size // root.dtype.itemsize)
        set_final_data(root, final_data)

    def set_write_back(self, flag: bool = True) -> None:
        """Switch the write-back at destruction on or off (§4.7.2.1)."""
        set_write_back(self._root, bool(flag))

    def reinterpret(self, dtype: Any, rng: Any = None) -> buffer:
        """A view of the same data with another element type and range (§4.7.2.1).

        ``rng`` may be a ``range`` or, for a 1-D result, omitted; the byte size must match.
        """
        new_dtype = element_type(dtype)
        nbytes = self.byte_size()
        if rng is None:
            if self._range.dimensions == 1 or new_dtype.itemsize == self._dtype.itemsize:
                if new_dtype.itemsize == self._dtype.itemsize:
                    new_range = self._range
                elif nbytes % new_dtype.itemsize:
                    raise exception(
                        errc.invalid,
                        f"{nbytes} bytes are not a whole number of {new_dtype} elements",
                    )
                else:
                    new_range = range(nbytes // new_dtype.itemsize)
            else:
                raise exception(
                    errc.invalid, "reinterpret to another element size needs a range (or a 1-D buffer)"
                )
        else:
            new_range = as_range(rng)
        if new_range.size() * new_dtype.itemsize != nbytes:
            raise exception(
                errc.invalid,
                f"reinterpret to {new_range} of {new_dtype} is {new_range.size() * new_dtype.itemsize} "
                f"bytes; the buffer has {nbytes}",
            )
        return self._another_handle(new_range, new_dtype)

    def __copy__(self) -> buffer:
        """A second handle to the same buffer (C++'s copy, §4.7.2.3): the buffer is destroyed
        when its last handle goes."""
        return self._another_handle(self._range, self._dtype)

    def _another_handle(self, rng: range, dtype: np.dtype[Any]) -> buffer:
        """A handle to the same data seen as ``rng`` of ``dtype`` (a copy or a reinterpretation)."""
        self._check_alive()
        view = object.__new__(buffer)
        view._props = self._props
        view._extent(rng, dtype)
        view._root = self._root
        view._base = self._base
        view._sub = self._sub
        view._attach()
        return view

    def transfer_counters(self) -> TransferCounters:
        """Bytes moved for this buffer's memory object so far (a sycl_ocl extension; see
        docs/scheduler.md)."""
        return self._root.counters.snapshot()

    def _get_native(self) -> list[cl.Buffer]:
        """``get_native``: the ``pyopencl.Buffer`` of every context the buffer lives in."""
        return native_buffers(self._root)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, buffer):
            return NotImplemented
        return (other._root, other._base, other._range, other._dtype) == (
            self._root, self._base, self._range, self._dtype)

    def __hash__(self) -> int:
        return hash((id(self._root), self._base, self._range))

    def __repr__(self) -> str:
        kind = "sub-buffer" if self._sub else "buffer"
        return f"<sycl.{kind} {self._range} of {self._dtype}>"


def make_buffer(mem: cl.Buffer, ctx: context, dtype: Any = np.uint8) -> buffer:
    """Wrap a ``pyopencl.Buffer`` of ``ctx`` (§4.5.1.3); its contents are the buffer's data.

    The buffer has no host memory; the ``cl_mem`` stays owned by the caller.
    """
    if not isinstance(mem, cl.Buffer):
        raise exception(errc.invalid, f"make_buffer takes a pyopencl.Buffer, got {mem!r}")
    if mem.context != ctx._native:
        raise exception(errc.invalid, "make_buffer: the memory object belongs to another context", ctx)
    dt = element_type(dtype)
    if mem.size % dt.itemsize:
        raise exception(errc.invalid, f"the memory object's {mem.size} bytes are not whole {dt} elements")
    buf = buffer(range(mem.size // dt.itemsize), dt)
    adopt(buf._root, mem, ctx._native, ctx)
    return buf


# --- helpers -----------------------------------------------------------------------------


def element_type(dtype: Any) -> np.dtype[Any]:
    """``dtype`` as the numpy element type of memory; ``errc.invalid`` for one numpy does not
    know or one holding Python objects (not device copyable)."""
    try:
        dt = np.dtype(dtype)
    except TypeError:
        raise exception(errc.invalid, f"{dtype!r} is not a numpy element type") from None
    if dt.hasobject:
        raise exception(
            errc.invalid, f"elements of {dt} are Python objects; memory holds plain data (device copyable)")
    return dt


class _Building(threading.local):
    """Per thread, in ``slot[0]``, the handler of the command group whose function runs on it
    (``queue.submit`` sets it around the call and puts back the one it found, for a submit
    nested in a command-group function; a host task's submit runs on a thread of its own).

    The cheapest per-thread form measured (bench/instructions.py, callgrind): a one-element
    list fetched once per submit costs it about 840 instructions (1.9% of a held submit); an
    attribute set and put back costs about 700 per access of a ``threading.local`` (three:
    2,100), a dict keyed by ``threading.get_ident()`` about 1,700 (the identity is a new int
    each call). The stack walk it replaces cost the submit nothing but was a search of frames
    for ``queue.submit``'s local ``h``.
    """

    def __init__(self) -> None:
        self.slot: list[handler | None] = [None]


BUILDING = _Building()


def _hand_on_to_command_group(buf: buffer) -> None:
    """Rule S29 where ``buf``'s last reference goes inside a command-group function on this
    thread whose command group has an accessor of its memory object (one that took a window
    the buffer kept joins with no work, rule S20, and holds nothing: ``sycl.accessor(
    bufs.pop(), h)``): a new handle of it joins the group's ``_owning``, so that the command
    keeps the buffer until it completes (``held_only_by``), as the accessor would in C++.
    Outside a collection and the scheduler, on a user's thread only (``may_call_user``); the
    group is the one ``queue.submit`` is building on this thread (``BUILDING``)."""
    root = buf._root
    if root.handles != 1 or not may_call_user():
        return
    h = BUILDING.slot[0]
    if h is not None and any(acc._win.req.memory is root for acc in h._accessors):
        heir = buf._another_handle(buf._range, buf._dtype)
        if h._owning is None:
            h._owning = [heir]
        else:
            h._owning.append(heir)


def held_only_by(buffers: list[buffer]) -> list[buffer] | None:
    """Those of ``buffers`` (a command group's, ``handler._owning``) that nothing but that list
    holds: a temporary buffer, one local to the command-group function, a placeholder's that
    is dropped with it. The command keeps them until it completes, as in C++, where an accessor
    shares ownership of its buffer (docs/scheduler.md rule S29); a buffer the program holds
    stays the program's, and ends when it drops it (rule S13). None for none."""
    owned: list[buffer] | None = None
    for buf in buffers:
        if _others(buffers, buf) <= _ALONE and (owned is None or not any(mine is buf for mine in owned)):
            owned = [buf] if owned is None else [*owned, buf]
    return owned


def _others(buffers: list[Any], buf: Any) -> int:
    """``buf``'s references but for its entries in ``buffers``: more than ``_ALONE``, another
    holder (the count's own references, which differ between Python versions, measured once)."""
    return sys.getrefcount(buf) - sum(1 for other in buffers if other is buf)


def _held_once() -> int:
    """``_others`` in ``held_only_by``'s loop, of an object that only its list holds."""
    probe = [object()]
    for buf in probe:
        return _others(probe, buf)
    raise AssertionError("unreachable")


_ALONE = _held_once()


def _is_buffer_like(data: Any) -> bool:
    try:
        memoryview(data)
    except TypeError:
        return False
    return True


def _check_final_data(target: Any, elements: int) -> None:
    """``errc.invalid`` unless ``target`` (``set_final_data``'s) is a writable array of at
    least ``elements`` elements: the write-back would drop the rest."""
    if not _writable(target):
        raise exception(errc.invalid, "set_final_data needs a writable array (or a weakref to one)")
    held = np.asarray(target).size
    if held < elements:
        raise exception(
            errc.invalid,
            f"set_final_data: the array has {held} elements, the buffer {elements}; give an array at "
            "least as large (or None for no write-back)",
        )


def _writable(data: Any) -> bool:
    if isinstance(data, np.ndarray):
        return bool(data.flags.writeable)
    try:
        return not memoryview(data).readonly
    except TypeError:
        return False


def _host_array(data: Any, dtype: Any) -> tuple[np.ndarray, bool]:
    """The host data as an array, and whether it may be written back."""
    if isinstance(data, np.ndarray):
        if dtype is not None and np.dtype(dtype) != data.dtype:
            raise exception(errc.invalid, f"the host array holds {data.dtype}, not {np.dtype(dtype)}")
        if data.dtype.hasobject:
            raise exception(errc.invalid, "buffer elements must be plain data, not Python objects")
        return data, bool(data.flags.writeable)
    if _is_buffer_like(data):
        view = memoryview(data)
        arr = np.frombuffer(data, dtype=dtype if dtype is not None else np.dtype(view.format))
        return arr, not view.readonly
    if hasattr(data, "__dlpack__"):
        return _host_array(_from_dlpack(data), dtype)
    if isinstance(data, Iterable):
        if dtype is None:
            raise exception(errc.invalid, "buffer(iterable) needs dtype= to know the element type")
        return np.array(list(data), dtype=element_type(dtype)), False
    raise exception(errc.invalid, f"a buffer is made from an array, a range or an iterable, not {data!r}")


def _from_dlpack(data: Any) -> np.ndarray:
    """The numpy view of a DLPack host object (a torch CPU tensor): no copy.

    Raises:
        sycl.exception: ``errc.invalid`` for memory the host cannot address (a GPU tensor).
    """
    try:
        return np.from_dlpack(data)
    except (BufferError, RuntimeError, TypeError, ValueError) as error:
        raise exception(
            errc.invalid,
            f"a buffer is made over host memory, and {type(data).__name__} did not export any through "
            f"DLPack ({error}); copy it to the host first (e.g. tensor.cpu())",
        ) from error


# A buffer makes accessors of itself (§4.7.2.1, §4.7.6), and _accessor.py imports this module:
# bound once here, after the buffer class exists (an import statement inside get_access ran on
# every call).
from . import _accessor  # noqa: E402
