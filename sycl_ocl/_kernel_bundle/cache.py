"""The build caches and their statistics (SYCL 2020 §4.11; the statistics are a sycl_ocl extension).

In memory: one table per context, one build per key. Keys name everything a build depends on
(stage, images, devices, options, specialization constant values). The first thread to ask
for a key builds it while later ones wait; a failure is replayed to every waiter. A context's
table goes when its wrapper is collected.

On disk: executable programs kept across processes. An entry holds ``CL_PROGRAM_BINARIES``
per device, keyed by a hash of everything the build reads: each unit's source and the options
the driver gets, the content of every file its ``#include`` lines may read (a changed header
is a new key), each device's platform and driver identity and version, and the sycl_ocl and
PyOpenCL versions. A unit whose include names its file through a macro is not cached on disk.
The entry stores the full key text and a SHA-256 of the key and binaries, both verified before
the driver sees a binary; an entry that fails (a flipped byte, another program's entry, a
truncated file) or that the driver refuses is deleted, with one ``RuntimeWarning``, and the
program is built from source and stored again. Entries are written atomically (temporary
file, then rename), so concurrent writers never leave a partial entry; a read-only directory
is read and never written. ``SYCL_OCL_CACHE_DIR`` chooses the directory (default
``$XDG_CACHE_HOME/sycl_ocl`` or ``~/.cache/sycl_ocl``); ``SYCL_OCL_DISABLE_CACHE=1`` turns
the disk cache off. The first write of a process trims the directory to
``SYCL_OCL_CACHE_MAX_MB`` (default 1024), least recently used entries first (a reload
refreshes an entry's time).

The cache never stops a build (docs/reliability.md, "The build cache"): an entry's path that is
not a regular file (a FIFO, a directory) is rejected without being opened for a blocking read,
no home directory turns the disk cache off with a warning, and a limit that is no size warns
and keeps the default.

``build_cache_stats()`` returns counters that make "a warm start compiles nothing" testable.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import stat
import struct
import tempfile
import threading
import warnings
import weakref
from collections.abc import Callable, Hashable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import pyopencl as cl

from .._native import compiler_warnings_off
from . import _program
from ._preprocess import include_dirs, included_files

if TYPE_CHECKING:
    from .._context import context
    from .._device import device
    from .registry import ImageSource


def build_cache_stats() -> dict[str, int]:
    """Counters of the build caches since the process started (a sycl_ocl extension,
    ``sycl_ocl.tools.build_cache_stats``; docs/kernels.md, "The build cache").

    Keys: ``memory_builds`` (programs made: built, compiled, linked or reloaded),
    ``memory_hits`` (requests served from memory), ``disk_hits`` (programs reloaded from
    disk), ``disk_misses`` (executable programs built from source), ``disk_stores``,
    ``disk_rejected`` (entries that failed verification: the driver never saw them) and
    ``disk_refused`` (verified entries the driver could not load).
    """
    return {
        "memory_builds": memory_counters["builds"],
        "memory_hits": memory_counters["hits"],
        **{f"disk_{name}": value for name, value in disk_counters.items()},
    }


# --- in memory ---------------------------------------------------------------------------

T = TypeVar("T")

_lock = threading.Lock()
_tables: dict[int, _Table] = {}
memory_counters = {"builds": 0, "hits": 0}


class _Slot:
    __slots__ = ("done", "error", "value")

    def __init__(self) -> None:
        self.done = threading.Event()
        self.value: Any = None
        self.error: BaseException | None = None


class _Table:
    """One context's builds (``slots``) and its launch lookups (``fast``: (spec, device) -> kernel)."""

    __slots__ = ("fast", "lock", "slots")

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.slots: dict[Hashable, _Slot] = {}
        self.fast: dict[Hashable, Any] = {}


def table(ctx: context) -> _Table:
    """The cache table of ``ctx``, created on first use and dropped with the context."""
    tab = _tables.get(ctx._handle)
    if tab is not None:
        return tab
    with _lock:
        tab = _tables.get(ctx._handle)
        if tab is None:
            tab = _tables[ctx._handle] = _Table()
            weakref.finalize(ctx, _tables.pop, ctx._handle, None)
    return tab


def cached(ctx: context, key: Hashable, make: Callable[[], T]) -> T:
    """``make()``'s result for ``key`` in ``ctx``'s table, computed once."""
    tab = table(ctx)
    slot = tab.slots.get(key)
    if slot is not None and slot.done.is_set() and slot.error is None:
        memory_counters["hits"] += 1
        return slot.value
    with tab.lock:
        slot = tab.slots.get(key)
        owner = slot is None
        if slot is None:
            slot = tab.slots[key] = _Slot()
    if not owner:
        slot.done.wait()
        if slot.error is not None:
            raise slot.error
        memory_counters["hits"] += 1
        return slot.value
    try:
        slot.value = make()
        memory_counters["builds"] += 1
    except BaseException as error:
        slot.error = error
        with tab.lock:
            tab.slots.pop(key, None)  # a later call retries (the source may be fixed)
        raise
    finally:
        slot.done.set()
    return slot.value


# --- on disk -----------------------------------------------------------------------------

_FORMAT = b"sycl_ocl-binaries-2\n"
# hits: reloaded; misses: built from source; stores: entries written; rejected: entries that
# failed verification (the driver never saw them); refused: entries the driver could not load.
disk_counters = {"hits": 0, "misses": 0, "stores": 0, "rejected": 0, "refused": 0}


def cache_dir() -> Path | None:
    """The cache directory, or None when the disk cache is disabled."""
    if os.environ.get("SYCL_OCL_DISABLE_CACHE", "") not in ("", "0"):
        return None
    chosen = os.environ.get("SYCL_OCL_CACHE_DIR")
    if chosen:
        return Path(chosen)
    base = os.environ.get("XDG_CACHE_HOME")
    if not base:
        try:
            base = str(Path.home() / ".cache")
        except RuntimeError:  # HOME unset and no passwd entry: no default place
            _warn_once("home", "sycl_ocl: no home directory (HOME unset, no passwd entry), so the disk "
                               "build cache is off; set SYCL_OCL_CACHE_DIR to keep builds across processes")
            return None
    return Path(base) / "sycl_ocl"


@functools.cache
def _identity(native: cl.Device) -> tuple[str, ...]:
    """The platform's and the device's identity and versions (what a binary depends on)."""
    plat = native.platform
    return (plat.vendor, plat.name, plat.version, native.vendor, native.name, native.version,
            native.driver_version)


def _key_text(
    ctx: context, devices: Sequence[device], units: Sequence[ImageSource], options: Sequence[str]
) -> str | None:
    """The text naming everything the program of ``units`` depends on; None when an
    ``#include`` names its file through a macro (the key could not cover that file)."""
    built = [(units[0], tuple(options)), *((u, u.options) for u in units[1:])]
    parts = []
    includes: dict[str, str | None] = {}
    for unit, unit_options in built:
        # What the driver gets: PyOpenCL adds its own include folder and $PYOPENCL_BUILD_OPTIONS.
        driver_options = cl.Program._process_build_options(ctx._native, list(unit_options))[0].decode()
        found = included_files(unit.source, include_dirs([driver_options]))
        if found is None:
            return None
        includes.update(found)
        parts.append({"source_sha256": hashlib.sha256(unit.source.encode()).hexdigest(),
                      "options": driver_options})
    return json.dumps(
        {
            "format": _FORMAT.decode(),
            "sycl_ocl": _VERSION,
            "pyopencl": cl.VERSION_TEXT,
            "devices": [_identity(d._native) for d in devices],
            "units": parts,
            "includes": sorted(includes.items()),
        },
        sort_keys=True,
    )


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("sycl_ocl")
    except Exception:  # running from a checkout that is not installed
        return "checkout"


_VERSION = _version()


def load_or_make(
    ctx: context,
    devices: Sequence[device],
    units: Sequence[ImageSource],
    options: Sequence[str],
    make: Callable[[], cl.Program],
) -> cl.Program:
    """An executable program for ``devices``: reloaded if cached, else ``make()``'s (then stored).

    ``make`` builds ``units[0]`` with ``options`` and links it with ``units[1:]`` (its library
    units, compiled with their own options): what the key covers, with the files they include.
    """
    directory = cache_dir()
    key_text = _key_text(ctx, devices, units, options) if directory is not None else None
    if directory is None or key_text is None:
        disk_counters["misses"] += 1
        return make()
    path = directory / (hashlib.sha256(key_text.encode()).hexdigest() + ".clbin")
    prg = _load(ctx, devices, options, path, key_text)
    if prg is not None:
        disk_counters["hits"] += 1
        _touch(path)
        return prg
    disk_counters["misses"] += 1
    prg = make()
    if _key_text(ctx, devices, units, options) == key_text:  # no included file changed meanwhile
        _store(path, key_text, prg, devices)
    return prg


def _load(
    ctx: context, devices: Sequence[device], options: Sequence[str], path: Path, key_text: str
) -> cl.Program | None:
    """The program of the entry at ``path``, verified before the driver sees it; None (the
    entry deleted) if it cannot be used."""
    try:
        # Non-blocking: opening a FIFO for a blocking read would wait for a writer for good.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        identity = _identity_of(info)
        if not stat.S_ISREG(info.st_mode):
            disk_counters["rejected"] += 1
            _discard(path, identity, "it is not a regular file")
            return None
        with os.fdopen(fd, "rb", closefd=False) as entry:
            data = entry.read()
    except OSError:
        return None
    finally:
        os.close(fd)
    binaries = _decode(data, key_text)
    if binaries is None or len(binaries) != len(devices):
        disk_counters["rejected"] += 1
        _discard(path, identity, "its checksum, key or layout does not match")
        return None
    try:
        prg = cl.Program(ctx._native, [d._native for d in devices], binaries)
        with compiler_warnings_off:
            prg.build(list(options), [d._native for d in devices], cache_dir=False)  # type: ignore[arg-type]
        types = {prg.get_build_info(d._native, cl.program_build_info.BINARY_TYPE) for d in devices}
    except cl.Error:
        types = set()
    if types != {cl.program_binary_type.EXECUTABLE}:
        disk_counters["refused"] += 1
        _discard(path, identity, "the driver refused its binaries")
        return None
    return prg


def _identity_of(info: os.stat_result) -> tuple[int, int, int]:
    return info.st_dev, info.st_ino, info.st_mtime_ns


_warned: set[object] = set()


def _warn_once(key: object, message: str) -> None:
    """One ``RuntimeWarning`` per ``key`` and process."""
    if key not in _warned:
        _warned.add(key)
        warnings.warn(message, RuntimeWarning, stacklevel=4)


def _discard(path: Path, identity: tuple[int, int, int], why: str) -> None:
    """Delete the bad entry at ``path`` unless another process replaced it since it was read
    (or the directory is read-only); warn once per entry."""
    try:
        if _identity_of(path.stat()) == identity:
            path.unlink()
    except OSError:
        pass  # gone already, or not ours to delete: the rebuilt program is not stored either
    _warn_once(path, f"sycl_ocl: the build cache entry {path} is unusable ({why}); building from source")


def _encode(key_text: str, binaries: Sequence[bytes]) -> bytes:
    """An entry: the format tag, a SHA-256 of the rest, the key text, the binaries."""
    key = key_text.encode()
    parts = [struct.pack("<Q", len(key)), key, struct.pack("<Q", len(binaries))]
    for blob in binaries:
        parts += [struct.pack("<Q", len(blob)), blob]
    body = b"".join(parts)
    return _FORMAT + hashlib.sha256(body).digest() + body


def _decode(data: bytes, key_text: str) -> list[bytes] | None:
    """The binaries of an entry whose checksum holds and whose key is ``key_text`` (else None)."""
    start = len(_FORMAT) + 32
    if not data.startswith(_FORMAT) or hashlib.sha256(data[start:]).digest() != data[len(_FORMAT):start]:
        return None
    try:
        (key_len,) = struct.unpack_from("<Q", data, start)
        offset = start + 8 + key_len
        if data[start + 8:offset].decode() != key_text:
            return None  # another program's entry under this name
        (count,) = struct.unpack_from("<Q", data, offset)
        offset += 8
        binaries = []
        for _ in range(count):
            (size,) = struct.unpack_from("<Q", data, offset)
            binaries.append(data[offset + 8:offset + 8 + size])
            offset += 8 + size
        return binaries if offset == len(data) else None
    except (struct.error, UnicodeDecodeError):
        return None


def _store(path: Path, key_text: str, prg: cl.Program, devices: Sequence[device]) -> None:
    """Write the entry atomically; a cache that cannot be written is silently skipped."""
    try:
        binaries = _program.binaries(prg, devices)
    except cl.Error:
        return
    if not binaries or not all(binaries):
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.parent not in _trimmed:
            _trimmed.add(path.parent)
            evict(path.parent, _limit_bytes())
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".clbin")
    except OSError:
        return
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(_encode(key_text, binaries))
        os.replace(tmp, path)
        disk_counters["stores"] += 1
    except OSError:
        Path(tmp).unlink(missing_ok=True)


_DEFAULT_LIMIT_MB = 1024
_trimmed: set[Path] = set()


def _limit_bytes() -> int:
    """``SYCL_OCL_CACHE_MAX_MB`` in bytes; a setting that is no size (``abc``, ``inf``, ``nan``,
    negative) warns and gives the default."""
    setting = os.environ.get("SYCL_OCL_CACHE_MAX_MB", "")
    if not setting:
        return _DEFAULT_LIMIT_MB * 2**20
    try:
        megabytes = float(setting)
    except ValueError:
        megabytes = math.nan
    if not math.isfinite(megabytes) or megabytes < 0:
        _warn_once(("limit", setting),
                   f"sycl_ocl: SYCL_OCL_CACHE_MAX_MB={setting!r} is not a size in megabytes (a finite "
                   f"number, 0 or more); the build cache keeps {_DEFAULT_LIMIT_MB} MB")
        return _DEFAULT_LIMIT_MB * 2**20
    return int(megabytes * 2**20)


def _touch(path: Path) -> None:
    try:
        os.utime(path)
    except OSError:
        return


def evict(directory: Path, limit: int) -> int:
    """Delete the least recently used entries until ``directory`` holds at most ``limit``
    bytes of them; returns how many were deleted."""
    entries = []
    for entry in directory.glob("*.clbin"):
        try:
            info = entry.lstat()
        except OSError:
            continue
        if stat.S_ISREG(info.st_mode):  # else not ours to delete (a folder, a FIFO, a link)
            entries.append((info.st_mtime, info.st_size, entry))
    total = sum(size for _, size, _ in entries)
    removed = 0
    for _, size, entry in sorted(entries, key=lambda e: e[0]):
        if total <= limit:
            break
        entry.unlink(missing_ok=True)
        total -= size
        removed += 1
    return removed
