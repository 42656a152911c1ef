"""What a memory object's user handles change in it (§4.7.2.1, §4.7.2.3): each change is one
call, made under the runtime's lock, so that planning never sees half of it."""

from __future__ import annotations

from typing import Any

from .._native import cl
from .memory_object import MemoryObject
from .runtime import RUNTIME


def add_handle(memory: MemoryObject) -> None:
    """Count one more user handle (a buffer, a view, a sub-buffer) of ``memory``."""
    with RUNTIME:
        memory.handles += 1


def drop_handle(memory: MemoryObject) -> bool:
    """Count one user handle fewer; whether it was the last (then ``lifetime.destroy`` runs)."""
    with RUNTIME:
        memory.handles -= 1
        return memory.handles == 0


def set_final_data(memory: MemoryObject, final_data: Any) -> None:
    """Write back at destruction into ``final_data`` (an array or a ``weakref.ref`` to one),
    or nowhere for None (§4.7.2.1)."""
    with RUNTIME:
        memory.invalidate()  # docs/scheduler.md rule S17
        memory.target = final_data
        memory.write_back = final_data is not None
        if final_data is not None:
            memory.blocking = True


def set_write_back(memory: MemoryObject, flag: bool) -> None:
    """Switch the write-back at destruction on (where there is somewhere to write) or off."""
    with RUNTIME:
        memory.invalidate()  # docs/scheduler.md rule S17
        memory.write_back = flag and (memory.user is not None or memory.target is not None)


def adopt(memory: MemoryObject, buf: cl.Buffer, native: cl.Context, owner: Any) -> None:
    """Take ``buf`` of the context ``native`` (the user's ``owner``) as ``memory``'s current
    contents (``make_buffer``, §4.5.1.3)."""
    with RUNTIME:
        memory.adopt(buf, RUNTIME.context(native, owner))


def native_buffers(memory: MemoryObject) -> list[cl.Buffer]:
    """The ``cl_mem`` of every context ``memory`` is allocated in (``get_native``)."""
    with RUNTIME:
        return [a.buf for a in memory.allocs.values() if a.buf is not None]
