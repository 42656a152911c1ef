"""Processes: a child made by fork() refuses sycl_ocl at once, and the interpreter's exit
waits for no more than the work in flight (docs/reliability.md, "Processes").

Each case is a real program run in a fresh interpreter (a script file, so that the 'spawn'
start method can import its functions): its parent makes a queue, runs a kernel and leaves a
host task in flight, then makes a child by ``os.fork()``, by ``multiprocessing``'s 'fork'
start method or by a ``ProcessPoolExecutor`` on it. The child's first SYCL call must raise
``errc.runtime`` naming fork and 'spawn' within seconds (it hung for good), a child that
never uses SYCL must exit at once (it waited 10 s for the parent's host task), and the same
work under 'spawn' must run.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from conftest import preferred_device
from kernel_support import ROOT

import sycl_ocl as sycl

PROGRAM = """
import json, multiprocessing, os, queue, signal, sys, threading, time
from concurrent.futures import ProcessPoolExecutor
import numpy as np
import sycl_ocl as sycl

sycl.register_kernel_source("__kernel void pr_inc(__global int* a) { a[get_global_id(0)] += 1; }")
DEVICE = os.environ["PR_DEVICE"]


def device():
    return next(d for d in sycl.device.get_devices()
                if DEVICE == d.get_platform().get_info(sycl.info.platform.name))


def use(q=None):
    # The child's SYCL work: a kernel and a host task on a buffer, written back. A child that
    # hangs is ended after 30 s (SIGALRM's default action), which the parent reports.
    signal.alarm(30)
    start = time.monotonic()
    try:
        q = q or sycl.queue(device())
        data = np.zeros(8, np.int32)
        with sycl.buffer(data) as buf:
            q.submit(lambda h: h.parallel_for(8, "pr_inc", sycl.accessor(buf, h)))
            q.submit(lambda h: h.host_task(lambda: None)).wait()
        return {"value": int(data[0]), "s": time.monotonic() - start}
    except sycl.exception as error:
        return {"errc": str(error.code()), "message": str(error), "s": time.monotonic() - start}


def main(how):
    q = sycl.queue(device())
    with sycl.buffer(np.zeros(8, np.int32)) as buf:
        q.submit(lambda h: h.parallel_for(8, "pr_inc", sycl.accessor(buf, h))).wait()
    gate = threading.Event()
    q.submit(lambda h: h.host_task(lambda: gate.wait(30)))  # in flight while the child lives
    start = time.monotonic()
    if how in ("os.fork", "os.fork idle"):
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read)
            found = use(q) if how == "os.fork" else {}
            os.write(write, json.dumps(found).encode())
            sys.exit(0)  # the interpreter's exit, atexit functions included
        os.close(write)
        with os.fdopen(read) as pipe:
            found = json.loads(pipe.read() or '{"hung": true}')
        os.waitpid(pid, 0)
    elif how == "multiprocessing":
        ctx = multiprocessing.get_context("fork")
        results = ctx.Queue()
        child = ctx.Process(target=lambda: results.put(use()))
        child.start()
        try:
            found = results.get(timeout=60)
        except queue.Empty:
            found = {"hung": True}
        child.join(60)
    else:  # a pool: "fork" or "spawn"
        with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context(how)) as pool:
            try:
                found = pool.submit(use).result(timeout=120)
            except Exception as error:  # the worker ended by its alarm: the pool is broken
                found = {"hung": repr(error)}
    found["child_s"] = time.monotonic() - start
    gate.set()
    print(json.dumps(found))


if __name__ == "__main__":
    main(sys.argv[1])
"""


def run_program(tmp_path: Path, how: str) -> Any:
    """Run PROGRAM's ``main(how)`` on the preferred device; its JSON line."""
    script = tmp_path / "program.py"
    script.write_text(textwrap.dedent(PROGRAM))
    dev = preferred_device()
    assert dev is not None
    env = {**os.environ, "PR_DEVICE": str(dev.get_platform().get_info(sycl.info.platform.name)),
           "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    done = subprocess.run([sys.executable, str(script), how], capture_output=True, text=True, env=env,
                          timeout=180, cwd=tmp_path)
    assert done.returncode == 0, f"{how}: {done.returncode}\n{done.stdout}\n{done.stderr[-3000:]}"
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("how", ["os.fork", "multiprocessing", "fork"])
def test_a_forked_child_refuses_sycl_at_once(tmp_path: Path, how: str) -> None:
    """The child's first call raises errc.runtime naming fork and the 'spawn' start method (it
    never ran a host task, and its kernels never ended)."""
    found = run_program(tmp_path, how)
    assert found.get("errc") == "errc.runtime", found
    assert "fork()" in found["message"] and "'spawn'" in found["message"]
    assert found["s"] < 5 and found["child_s"] < 30


def test_a_forked_child_that_never_uses_sycl_exits_at_once(tmp_path: Path) -> None:
    """Its exit waited 10 s for the parent's host task in flight, then logged it abandoned."""
    found = run_program(tmp_path, "os.fork idle")
    assert found["child_s"] < 3, found


def test_a_spawned_child_runs_sycl(tmp_path: Path) -> None:
    """The cure the error names works: a 'spawn' pool's worker runs the same SYCL work."""
    found = run_program(tmp_path, "spawn")
    assert found.get("value") == 1, found
