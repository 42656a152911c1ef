"""The build cache (SYCL 2020 §4.11): in memory per key, on disk across processes.

Two child processes load the whole kernel library with one cache directory: the first
builds every image from source, the second reloads them all and compiles nothing. The disk
key covers the files a unit includes; an entry is verified before the driver sees it, and a
bad one is deleted and rebuilt (docs/kernels.md, "The build cache").
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pyopencl as cl
import pytest
from kernel_support import ROOT, child_json, run_child

import sycl_ocl as sycl
from sycl_ocl import library
from sycl_ocl.tools import build_cache_stats

LOAD_LIBRARY = """
import json
import sycl_ocl as sycl
from sycl_ocl.tools import build_cache_stats
images = 0
for dev in sycl.device.get_devices():
    ids = [k for k in sycl.library.get_kernel_ids() if sycl.is_compatible([k], dev)]
    images += len(sycl.get_kernel_bundle(sycl.bundle_state.executable, sycl.context(dev), kernel_ids=ids))
print(json.dumps({"images": images, **build_cache_stats()}))
"""
COPY32, COPY64 = library.get_kernel_id("copy_int32"), library.get_kernel_id("copy_int64")


def test_second_process_compiles_nothing(tmp_path: Path) -> None:
    env = {"SYCL_OCL_CACHE_DIR": str(tmp_path)}
    cold = child_json(LOAD_LIBRARY, env)
    warm = child_json(LOAD_LIBRARY, env)
    assert cold["images"] == warm["images"] > 0
    # Devices with one identity (PoCL's two pthread devices) share entries even when cold.
    assert cold["disk_misses"] == cold["disk_stores"] > 0
    assert cold["disk_misses"] + cold["disk_hits"] == cold["images"]
    assert warm["disk_hits"] == warm["images"]
    assert warm["disk_misses"] == warm["disk_stores"] == warm["disk_rejected"] == 0


def test_disabled_disk_cache_writes_nothing(tmp_path: Path) -> None:
    env = {"SYCL_OCL_CACHE_DIR": str(tmp_path), "SYCL_OCL_DISABLE_CACHE": "1"}
    first = child_json(LOAD_LIBRARY, env)
    assert first["disk_misses"] == first["images"] and first["disk_stores"] == 0
    assert not list(tmp_path.iterdir())


def test_corrupt_entries_fall_back_to_a_build(tmp_path: Path) -> None:
    env = {"SYCL_OCL_CACHE_DIR": str(tmp_path)}
    cold = child_json(LOAD_LIBRARY, env)
    entries = sorted(tmp_path.glob("*.clbin"))
    assert len(entries) == cold["disk_stores"]
    entries[0].write_bytes(entries[0].read_bytes()[:40])  # truncated
    entries[1].write_bytes(b"\0" * 64)  # garbage
    warm = child_json(LOAD_LIBRARY, env)
    assert warm["disk_rejected"] == warm["disk_misses"] == warm["disk_stores"] == 2
    assert warm["disk_hits"] + 2 == cold["images"] and warm["disk_refused"] == 0
    again = child_json(LOAD_LIBRARY, env)  # the bad entries were replaced by good ones
    assert again["disk_hits"] == cold["images"] and again["disk_rejected"] == 0


def test_memory_cache_reuses_builds(queue: sycl.queue) -> None:
    """The same request twice builds once; another context builds again."""
    ctx = queue.get_context()
    sycl.get_kernel_bundle(sycl.bundle_state.executable, ctx, kernel_ids=[COPY32])
    before = build_cache_stats()
    again = sycl.get_kernel_bundle(sycl.bundle_state.executable, ctx, kernel_ids=[COPY32])
    after = build_cache_stats()
    assert after["memory_builds"] == before["memory_builds"]
    assert after["memory_hits"] > before["memory_hits"]
    other = sycl.context(queue.get_device())
    sycl.get_kernel_bundle(sycl.bundle_state.executable, other, kernel_ids=[COPY32])
    assert build_cache_stats()["memory_builds"] == after["memory_builds"] + 1
    assert again.has_kernel(COPY32)


@pytest.mark.parametrize("state", [sycl.bundle_state.input, sycl.bundle_state.object])
def test_memory_cache_covers_every_state(queue: sycl.queue, state: sycl.bundle_state) -> None:
    ctx = queue.get_context()
    first = sycl.get_kernel_bundle(state, ctx, kernel_ids=[COPY64])
    builds = build_cache_stats()["memory_builds"]
    second = sycl.get_kernel_bundle(state, ctx, kernel_ids=[COPY64])
    assert build_cache_stats()["memory_builds"] == builds
    assert list(first) == list(second)


def test_concurrent_requests_build_once(queue: sycl.queue) -> None:
    """Eight threads asking for one new image at once: one build, every thread gets it."""
    ids = sycl.register_kernel_source(
        f"__kernel void bc_once_{abs(hash(queue.get_device()))}(__global int *a) {{ a[0] = 1; }}"
    )
    ctx = sycl.context(queue.get_device())
    start = threading.Barrier(8)
    results: list[sycl.kernel_bundle] = []

    def ask() -> None:
        start.wait()
        results.append(sycl.get_kernel_bundle(sycl.bundle_state.executable, ctx, kernel_ids=ids))

    before = build_cache_stats()["memory_builds"]
    threads = [threading.Thread(target=ask) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert build_cache_stats()["memory_builds"] == before + 1
    images = {id(next(iter(b))) for b in results}
    assert len(results) == 8 and len(images) == 1


def test_eviction_drops_least_recently_used_entries(tmp_path: Path) -> None:
    from sycl_ocl._kernel_bundle.cache import evict

    for age, name in enumerate(["newest", "middle", "oldest"]):
        entry = tmp_path / f"{name}.clbin"
        entry.write_bytes(b"x" * 1000)
        os.utime(entry, (1_000_000 - age * 1000, 1_000_000 - age * 1000))
    assert evict(tmp_path, 2500) == 1
    assert sorted(p.stem for p in tmp_path.glob("*.clbin")) == ["middle", "newest"]
    assert evict(tmp_path, 0) == 2 and not list(tmp_path.glob("*.clbin"))


def test_a_small_limit_trims_the_directory_on_the_first_write(tmp_path: Path) -> None:
    stale = tmp_path / "stale.clbin"
    stale.write_bytes(b"x" * 4096)
    os.utime(stale, (1, 1))
    env = {"SYCL_OCL_CACHE_DIR": str(tmp_path), "SYCL_OCL_CACHE_MAX_MB": "0.001"}
    child_json(
        """
        import json
        import sycl_ocl as sycl
        dev = sycl.device.get_devices()[-1]
        copy32 = sycl.library.get_kernel_id("copy_int32")
        sycl.get_kernel_bundle(sycl.bundle_state.executable, sycl.context(dev), kernel_ids=[copy32])
        print(json.dumps(0))
        """,
        env,
    )
    assert not stale.exists() and len(list(tmp_path.glob("*.clbin"))) == 1


# --- included files --------------------------------------------------------------------------

RUN_UNIT = """
import json
import numpy as np
import sycl_ocl as sycl
from sycl_ocl.tools import build_cache_stats
dev = next(d for d in sycl.device.get_devices()
           if {platform!r} in d.get_platform().get_info(sycl.info.platform.name))
ids = sycl.register_kernel_source({source!r}, options={options!r})
out = np.zeros(1, np.int32)
with sycl.buffer(out) as buf:
    sycl.queue(sycl.context(dev), dev).submit(lambda h: h.single_task(ids[0], sycl.accessor(buf, h)))
print(json.dumps({{"value": int(out[0]), **build_cache_stats()}}))
"""


def _platform(dev: sycl.device) -> str:
    return str(dev.get_platform().get_info(sycl.info.platform.name))


def _run_unit(dev: sycl.device, source: str, options: list[str], cache: Path) -> dict[str, int]:
    """Run ``source``'s kernel (it stores one int) in a child with the disk cache at ``cache``."""
    code = RUN_UNIT.format(platform=_platform(dev), source=source, options=options)
    return child_json(code, {"SYCL_OCL_CACHE_DIR": str(cache)})


def test_a_changed_header_rebuilds(device: sycl.device, tmp_path: Path) -> None:
    """A quoted include found through ``-I`` includes another by a path relative to itself,
    which includes an angle one from a second ``-I`` folder: changing the last one rebuilds."""
    top, leaves = tmp_path / "top", tmp_path / "leaves"
    (top / "sub").mkdir(parents=True)
    leaves.mkdir()
    (top / "first.h").write_text('#include "sub/second.h"\n')
    (top / "sub" / "second.h").write_text("#include <leaf.h>\n")
    (leaves / "leaf.h").write_text("#define BC_VAL 1\n")
    source = '#include "first.h"\n__kernel void bc_header(__global int *a) { a[0] = BC_VAL; }'
    options = [f"-I{top}", "-I", str(leaves)]
    cold = _run_unit(device, source, options, tmp_path / "cache")
    warm = _run_unit(device, source, options, tmp_path / "cache")
    assert (cold["value"], cold["disk_stores"], warm["value"], warm["disk_hits"]) == (1, 1, 1, 1)
    (leaves / "leaf.h").write_text("#define BC_VAL 2\n")
    changed = _run_unit(device, source, options, tmp_path / "cache")
    assert (changed["value"], changed["disk_hits"], changed["disk_misses"]) == (2, 0, 1)
    (top / "leaf.h").write_text("#define BC_VAL 3\n")  # a file where a driver may look first
    shadowed = _run_unit(device, source, options, tmp_path / "cache")
    assert shadowed["disk_hits"] == 0


def test_an_include_named_by_a_macro_is_not_cached_on_disk(device: sycl.device, tmp_path: Path) -> None:
    """The key cannot follow a computed include: such a unit is always built from source."""
    (tmp_path / "val.h").write_text("#define BC_VAL 4\n")
    source = (
        '#define BC_FILE "val.h"\n#include BC_FILE\n'
        "__kernel void bc_macro(__global int *a) { a[0] = BC_VAL; }"
    )
    for _ in range(2):
        found = _run_unit(device, source, [f"-I{tmp_path}"], tmp_path / "cache")
        assert (found["value"], found["disk_hits"], found["disk_stores"]) == (4, 0, 0)


def test_included_files_cover_every_candidate(tmp_path: Path) -> None:
    """Each include counts in the including file's folder and every -I folder, found or not."""
    from sycl_ocl._kernel_bundle._preprocess import include_dirs, included_files

    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "x.h").write_text('#include "y.h"\n// #include MACRO is a comment\n')
    assert include_dirs([f"-I{tmp_path}/a -DX=1", "-I", "b"]) == [f"{tmp_path}/a", "b"]
    found = included_files('#include <x.h>\n', [str(tmp_path / "a"), str(tmp_path)])
    assert found is not None
    assert found[str(tmp_path / "a" / "x.h")] is not None
    assert found[str(tmp_path / "a" / "y.h")] is None and found[str(tmp_path / "y.h")] is None
    assert included_files("#include SOME_MACRO\n", []) is None


# --- damaged entries -------------------------------------------------------------------------

CACHED = sycl.register_kernel_source("__kernel void bc_cached(__global int *a) { a[0] = 11; }")
OTHER = sycl.register_kernel_source("__kernel void bc_other(__global int *a) { a[0] = 22; }")


def _value(dev: sycl.device, ids: list[sycl.kernel_id]) -> int:
    """Run the kernel in a new context, so the program comes from disk (or a build)."""
    out = np.zeros(1, np.int32)
    with sycl.buffer(out) as buf:
        sycl.queue(sycl.context(dev), dev).submit(lambda h: h.single_task(ids[0], sycl.accessor(buf, h)))
    return int(out[0])


def _entry(cache: Path, dev: sycl.device, ids: list[sycl.kernel_id]) -> Path:
    """The one entry that running ``ids`` in a new context adds to ``cache``."""
    before = set(cache.glob("*.clbin"))
    _value(dev, ids)
    (added,) = set(cache.glob("*.clbin")) - before
    return added


def _flip(path: Path, offset: int) -> None:
    data = bytearray(path.read_bytes())
    data[offset] ^= 0x5A
    path.write_bytes(bytes(data))


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SYCL_OCL_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("SYCL_OCL_DISABLE_CACHE", raising=False)
    _forget_warnings(monkeypatch)
    return tmp_path


def _forget_warnings(monkeypatch: pytest.MonkeyPatch) -> None:
    """A bad setting warns once a process: each test (each device's) expects its own warning."""
    from sycl_ocl._kernel_bundle import cache as cache_module

    monkeypatch.setattr(cache_module, "_warned", set())


def _damaged_runs(dev: sycl.device, ids: list[sycl.kernel_id], expected: int) -> None:
    """Run ``ids`` over a damaged entry: one warning, rejected before the driver, rebuilt,
    stored again; the next run reloads the new entry."""
    before = build_cache_stats()
    with pytest.warns(RuntimeWarning, match="build cache entry .* is unusable"):
        assert _value(dev, ids) == expected
    after = build_cache_stats()
    changes = {k: after[k] - before[k] for k in ("disk_rejected", "disk_refused", "disk_stores", "disk_hits")}
    assert changes == {"disk_rejected": 1, "disk_refused": 0, "disk_stores": 1, "disk_hits": 0}
    assert _value(dev, ids) == expected
    assert build_cache_stats()["disk_hits"] == after["disk_hits"] + 1


def test_a_flipped_byte_in_a_binary_is_rejected_before_the_driver(device: sycl.device, cache: Path) -> None:
    entry = _entry(cache, device, CACHED)
    _flip(entry, entry.stat().st_size - 16)  # inside the last binary
    _damaged_runs(device, CACHED, 11)


def test_an_entry_holding_another_programs_bytes_is_rejected(device: sycl.device, cache: Path) -> None:
    mine, other = _entry(cache, device, CACHED), _entry(cache, device, OTHER)
    mine.write_bytes(other.read_bytes())
    _damaged_runs(device, CACHED, 11)


def test_a_truncated_entry_is_rejected(device: sycl.device, cache: Path) -> None:
    entry = _entry(cache, device, CACHED)
    entry.write_bytes(entry.read_bytes()[: entry.stat().st_size // 2])
    _damaged_runs(device, CACHED, 11)


def test_a_flipped_byte_does_not_reach_the_driver_in_a_child(device: sycl.device, tmp_path: Path) -> None:
    """The crash the issue reported happened in the driver: run the damaged entry in a child."""
    source = "__kernel void bc_child(__global int *a) { a[0] = 33; }"
    first = _run_unit(device, source, [], tmp_path)
    (entry,) = tmp_path.glob("*.clbin")
    size = entry.stat().st_size
    _flip(entry, size - 16)  # inside the last binary
    done = run_child(
        RUN_UNIT.format(platform=_platform(device), source=source, options=[]),
        {"SYCL_OCL_CACHE_DIR": str(tmp_path)},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert first["value"] == result["value"] == 33
    assert (result["disk_rejected"], result["disk_refused"], result["disk_stores"]) == (1, 0, 1)
    assert done.stderr.count("is unusable") == 1


@contextmanager
def _read_only(folder: Path) -> Iterator[None]:
    """``folder`` made read-only: by its mode, or (for root, whom modes do not stop) by the
    immutable attribute."""
    folder.chmod(0o555)
    immutable = os.access(folder, os.W_OK) and subprocess.run(
        ["chattr", "+i", str(folder)], capture_output=True, check=False
    ).returncode == 0
    try:
        if os.access(folder, os.W_OK) and not immutable:
            pytest.skip("cannot make a folder read-only here (root without chattr)")
        yield
    finally:
        if immutable:
            subprocess.run(["chattr", "-i", str(folder)], check=True)
        folder.chmod(0o755)


def test_a_read_only_cache_is_read_and_not_written(device: sycl.device, cache: Path) -> None:
    """A good entry is reloaded; a bad one is rejected (it cannot be deleted) and its program
    built, not stored; so is a new one."""
    good, bad = _entry(cache, device, CACHED), _entry(cache, device, OTHER)
    _flip(bad, bad.stat().st_size - 16)
    fresh = sycl.register_kernel_source("__kernel void bc_fresh(__global int *a) { a[0] = 55; }")
    with _read_only(cache):
        before = build_cache_stats()
        assert _value(device, CACHED) == 11
        with pytest.warns(RuntimeWarning, match="is unusable"):
            assert _value(device, OTHER) == 22
        assert _value(device, fresh) == 55
        after = build_cache_stats()
    assert sorted(cache.glob("*.clbin")) == sorted([good, bad])
    changes = {k: after[k] - before[k] for k in ("disk_hits", "disk_rejected", "disk_stores")}
    assert changes == {"disk_hits": 1, "disk_rejected": 1, "disk_stores": 0}


def test_concurrent_writers_all_get_a_correct_program(device: sycl.device, tmp_path: Path) -> None:
    """Four processes build one new unit into one cache at once; all compute its values and
    leave one valid entry, which a fifth reloads."""
    source = "__kernel void bc_race(__global int *a) { a[0] = 44; }"
    code = RUN_UNIT.format(platform=_platform(device), source=source, options=[])
    env = {**os.environ, "SYCL_OCL_CACHE_DIR": str(tmp_path),
           "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    children = [
        subprocess.Popen([sys.executable, "-c", textwrap.dedent(code)], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT)
        for _ in range(4)
    ]
    results = []
    for child in children:
        out, err = child.communicate(timeout=240)
        assert child.returncode == 0, err[-3000:]
        results.append(json.loads(out.strip().splitlines()[-1]))
    assert [r["value"] for r in results] == [44] * 4
    assert all(r["disk_rejected"] == r["disk_refused"] == 0 for r in results)
    assert len(list(tmp_path.glob("*.clbin"))) == 1 and not list(tmp_path.glob(".tmp-*"))
    again = _run_unit(device, source, [], tmp_path)
    assert (again["value"], again["disk_hits"]) == (44, 1)


def test_a_header_changed_during_the_build_is_not_stored(queue: sycl.queue, cache: Path) -> None:
    """The build may have read either version: its program is used, not stored."""
    from sycl_ocl._kernel_bundle import _program
    from sycl_ocl._kernel_bundle.cache import load_or_make
    from sycl_ocl._kernel_bundle.registry import read_unit

    (cache / "inc").mkdir()
    header = cache / "inc" / "during.h"
    header.write_text("#define BC_VAL 1\n")
    options = (f"-I{cache / 'inc'}",)
    unit = read_unit('#include "during.h"\n__kernel void bc_during(__global int *a) { a[0] = BC_VAL; }',
                     options, frozenset(), "bc_during.cl")
    ctx, devices = sycl.context(queue.get_device()), [queue.get_device()]

    def edit_then_build() -> cl.Program:
        header.write_text("#define BC_VAL 2\n")
        return _program.build(_program.from_source(ctx, unit.source), ctx, devices, options, unit.origin)

    before = build_cache_stats()["disk_stores"]
    load_or_make(ctx, devices, [unit], options, edit_then_build)
    assert build_cache_stats()["disk_stores"] == before and not list(cache.glob("*.clbin"))
    load_or_make(ctx, devices, [unit], options, edit_then_build)
    assert build_cache_stats()["disk_stores"] == before + 1


# --- paths and settings that must not stop a build (docs/reliability.md, "The build cache") ---


def _bounded(fn: object, seconds: float = 60) -> list[object]:
    """``fn()``'s result on a thread of its own; fails (instead of hanging) past ``seconds``."""
    out: list[object] = []
    worker = threading.Thread(target=lambda: out.append(fn()), daemon=True)  # type: ignore[operator]
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), f"still waiting after {seconds} s"
    return out


@pytest.mark.parametrize("kind", ["fifo", "folder"])
def test_an_entry_that_is_not_a_regular_file_is_rejected_unread(device: sycl.device, cache: Path,
                                                                kind: str) -> None:
    """A FIFO at an entry's path blocked the build for good (a read waits for a writer); a
    folder there made the entry unreadable. Both are rejected with a warning and the program
    built from source."""
    fresh = sycl.register_kernel_source(f"__kernel void bc_{kind}(__global int *a) {{ a[0] = 66; }}")
    entry = _entry(cache, device, fresh)
    entry.unlink()
    os.mkfifo(entry) if kind == "fifo" else entry.mkdir()
    before = build_cache_stats()
    with pytest.warns(RuntimeWarning, match="is unusable .*not a regular file"):
        assert _bounded(lambda: _value(device, fresh)) == [66]
    assert build_cache_stats()["disk_rejected"] == before["disk_rejected"] + 1
    if kind == "fifo":  # deleted, and the rebuilt program stored in its place
        assert entry.is_file() and build_cache_stats()["disk_stores"] == before["disk_stores"] + 1


def test_a_fifo_among_the_entries_does_not_stop_the_trim(tmp_path: Path) -> None:
    from sycl_ocl._kernel_bundle.cache import evict

    os.mkfifo(tmp_path / "odd.clbin")
    (tmp_path / "dir.clbin").mkdir()
    (tmp_path / "real.clbin").write_bytes(b"x" * 100)
    assert _bounded(lambda: evict(tmp_path, 0)) == [1]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dir.clbin", "odd.clbin"]


def test_no_home_directory_turns_the_disk_cache_off(device: sycl.device,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """HOME unset and no passwd entry (injected: ``pwd.getpwuid`` finds none) made every build
    raise from ``Path.home()``; now the build runs, the disk cache off, with a warning."""
    import pwd

    def no_entry(uid: int) -> pwd.struct_passwd:
        raise KeyError(f"getpwuid(): uid not found: {uid}")

    for name in ("HOME", "XDG_CACHE_HOME", "SYCL_OCL_CACHE_DIR", "SYCL_OCL_DISABLE_CACHE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(pwd, "getpwuid", no_entry)
    _forget_warnings(monkeypatch)
    fresh = sycl.register_kernel_source("__kernel void bc_homeless(__global int *a) { a[0] = 77; }")
    before = build_cache_stats()
    with pytest.warns(RuntimeWarning, match="no home directory .*SYCL_OCL_CACHE_DIR"):
        assert _value(device, fresh) == 77
    after = build_cache_stats()
    assert after["disk_misses"] == before["disk_misses"] + 1 and after["disk_stores"] == before["disk_stores"]


@pytest.mark.parametrize("setting", ["inf", "nan", "-1", "lots"])
def test_a_cache_limit_that_is_no_size_warns_and_keeps_the_default(device: sycl.device, cache: Path,
                                                                   monkeypatch: pytest.MonkeyPatch,
                                                                   setting: str) -> None:
    """``SYCL_OCL_CACHE_MAX_MB=inf`` raised OverflowError at the first build."""
    from sycl_ocl._kernel_bundle.cache import _DEFAULT_LIMIT_MB, _limit_bytes

    monkeypatch.setenv("SYCL_OCL_CACHE_MAX_MB", setting)
    fresh = sycl.register_kernel_source(
        f"__kernel void bc_limit_{setting.strip('-')}(__global int *a) {{ a[0] = 88; }}")
    with pytest.warns(RuntimeWarning, match=f"SYCL_OCL_CACHE_MAX_MB='{setting}' is not a size"):
        assert _value(device, fresh) == 88
    assert len(list(cache.glob("*.clbin"))) == 1  # stored, under the default limit
    assert _limit_bytes() == _DEFAULT_LIMIT_MB * 2**20


HOST_TASK_WITH_SETTING = """
import json, threading, warnings
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    import sycl_ocl as sycl
    from sycl_ocl.scheduler.pool import POOL
ran = threading.Event()
sycl.queue().submit(lambda h: h.host_task(ran.set))
print(json.dumps({"ran": ran.wait(20), "size": POOL.size, "warnings": [str(w.message) for w in caught]}))
"""


@pytest.mark.parametrize("setting", ["0", "-1", "abc"])
def test_a_host_thread_count_that_is_no_count_warns_and_keeps_the_default(setting: str) -> None:
    """``SYCL_OCL_HOST_THREADS=0`` or ``-1`` left every host task waiting for good; ``abc``
    raised a bare ValueError at import."""
    found = child_json(HOST_TASK_WITH_SETTING, {"SYCL_OCL_HOST_THREADS": setting})
    assert found["ran"] and found["size"] == 16
    said = f"SYCL_OCL_HOST_THREADS='{setting}' is not a number of threads"
    assert any(said in w for w in found["warnings"])
