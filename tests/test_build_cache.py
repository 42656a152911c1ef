"""The build cache (SYCL 2020 §4.11; item 9): in memory per key, on disk across processes.

Two child processes load the whole kernel library with one cache directory: the first
builds every image from source, the second reloads them all and compiles nothing.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest
from kernel_support import child_json

import sycl_ocl as sycl
from sycl_ocl import library
from sycl_ocl.kernel_bundle import build_cache_stats

LOAD_LIBRARY = """
import json
import sycl_ocl as sycl
from sycl_ocl.kernel_bundle import build_cache_stats
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
    assert warm["disk_hits"] + 2 == cold["images"]


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
    from sycl_ocl.kernel_bundle.cache import evict

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
