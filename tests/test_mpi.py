"""MPI with mpi4py (docs/scaling.md): host accessors go to mpi4py directly, and
``examples/mpi_jacobi.py`` runs on two ranks, one PoCL device each, under the ``mpiexec`` that
``pip install "sycl_ocl[mpi]"`` put beside this interpreter (mpi4py and MPICH's wheels).

Each MPI program runs in a child with a time limit, killed with its ranks when it passes it:
a rank waiting for a partner that never comes fails the test instead of hanging the suite.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import pocl_devices
from kernel_support import ROOT, run_child

pytest.importorskip("mpi4py", reason="no mpi4py: pip install 'sycl_ocl[mpi]' (make install does)")

MPIEXEC = shutil.which("mpiexec", path=str(Path(sys.executable).parent)) or shutil.which("mpiexec")
LIMIT_S = 180
# Two ranks on a 2-core machine: one PoCL device each, one thread per device. Open MPI's
# mpiexec refuses root (CI's user) without the two variables; MPICH's ignores them.
RANK_ENV = {
    "POCL_DEVICES": "pthread pthread", "POCL_MAX_PTHREAD_COUNT": "1",
    "SYCL_OCL_DEVICE": "Portable Computing Language",
    "OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
}


@pytest.fixture
def mpiexec() -> str:
    if MPIEXEC is None:
        pytest.fail("mpi4py is installed but no mpiexec is: pip install 'sycl_ocl[mpi]' brings MPICH's")
    if len(pocl_devices()) < 2:
        pytest.skip("the ranks take one PoCL device each: needs PoCL with POCL_DEVICES='pthread pthread'")
    return MPIEXEC


def run_ranks(mpiexec: str, ranks: int, args: list[str]) -> subprocess.CompletedProcess[str]:
    """``mpiexec -n ranks python ARGS``; past ``LIMIT_S`` the launcher and its ranks are killed."""
    env = dict(os.environ, **RANK_ENV)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    command = [mpiexec, "-n", str(ranks), sys.executable, *args]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                          cwd=ROOT, start_new_session=True) as launcher:
        try:
            out, err = launcher.communicate(timeout=LIMIT_S)
        except subprocess.TimeoutExpired:
            os.killpg(launcher.pid, signal.SIGKILL)
            out, err = launcher.communicate()
            pytest.fail(f"{command} ran past {LIMIT_S} s (a rank waiting for another?)\n{out}\n{err}")
    return subprocess.CompletedProcess(command, launcher.returncode, out, err)


def json_lines(text: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


@pytest.mark.parametrize("exchange", ["copies", "graphs", "host accessors", "copies, two queues"])
def test_the_jacobi_example_on_two_ranks(mpiexec: str, exchange: str) -> None:
    """Each way of the exchange (explicit copies, command graphs, host accessors, copies with the
    inner rows on a second queue) on two ranks
    gives numpy's solution."""
    args = ["--rows", "16", "--cols", "64", "--iterations", "5"]
    flags = {"copies": [], "graphs": ["--graphs"], "host accessors": ["--host-accessors"],
             "copies, two queues": ["--two-queues"]}[exchange]
    done = run_ranks(mpiexec, 2, ["examples/mpi_jacobi.py", *args, *flags])
    assert done.returncode == 0, f"mpi_jacobi.py failed ({done.returncode}):\n{done.stdout}\n{done.stderr}"
    reports = json_lines(done.stdout)
    assert [r["ranks"] for r in reports] != [1, 1], (
        "each rank came up as a singleton (COMM_WORLD of size 1): the mpiexec is of another MPI than "
        f"the one mpi4py loaded ({mpiexec})"
    )
    assert len(reports) == 1, done.stdout  # rank 0 reports
    report = reports[0]
    assert report["ranks"] == 2
    assert report["check"] == "ok"  # the two slabs, gathered, equal numpy's solution
    assert report["grid"] == [32, 64]
    assert report["halo_bytes_per_iteration"] == 2 * 64 * 8
    assert report["iterations"] == 5
    assert report["per_iteration_s"] > 0
    assert report["exchange"] == exchange


@pytest.mark.parametrize("variant", [["--pinned"], ["--two-queues", "--pinned", "--profile"]])
def test_the_raw_twins_variants_give_numpys_solution(mpiexec: str, variant: list[str]) -> None:
    """bench/mpi_jacobi_raw.py with pinned host rows, and with the inner rows on a queue of their
    own ordered by events, computes what numpy does; ``--profile`` reports each rank's phases."""
    args = ["--rows", "16", "--cols", "64", "--iterations", "5", *variant]
    done = run_ranks(mpiexec, 2, ["bench/mpi_jacobi_raw.py", *args])
    assert done.returncode == 0, (
        f"mpi_jacobi_raw.py failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    (report,) = json_lines(done.stdout)
    assert report["check"] == "ok" and report["ranks"] == 2
    assert report["variant"]["pinned"] and report["variant"]["two_queues"] == ("--two-queues" in variant)
    if "--profile" in variant:
        assert [sorted(rank) for rank in report["profile_us"]] == [sorted(
            ["enqueue", "wait", "mpi", "write", "inner_median", "idle_median", "idle_mean"])] * 2
        assert all(rank["inner_median"] > 0 for rank in report["profile_us"])


def test_the_trace_command_writes_one_file_set_per_rank(mpiexec: str, tmp_path: Path) -> None:
    done = run_ranks(mpiexec, 2, ["-m", "sycl_ocl", "trace", "--out", str(tmp_path),
                                  str(ROOT / "examples" / "mpi_jacobi.py"), "--rows", "4", "--cols", "64",
                                  "--iterations", "1", "--no-check"])
    assert done.returncode == 0, f"{done.stdout}\n{done.stderr}"
    for rank in (0, 1):
        trace = json.loads((tmp_path / f"mpi_jacobi.rank{rank}.json").read_text())
        assert any("jacobi_rows" in str(e.get("name")) for e in trace["traceEvents"]), rank
        assert (tmp_path / f"mpi_jacobi.rank{rank}.dot").exists()
    assert not (tmp_path / "mpi_jacobi.json").exists()


def test_mpi4py_takes_host_accessors() -> None:
    """Send from a read-only host accessor into a write one, through DLPack; mpi4py refuses a
    read-only accessor as a receive buffer (one process: COMM_SELF)."""
    done = run_child("""
        import numpy as np
        from mpi4py import MPI
        import sycl_ocl as sycl
        comm = MPI.COMM_SELF
        src = sycl.buffer(np.arange(6, dtype=np.float64).reshape(2, 3))
        dst = sycl.buffer(sycl.range(2, 3), np.float64)
        q = sycl.queue()
        q.submit(lambda h: h.fill(sycl.accessor(src, h), 2.5)).wait()
        no_init = [sycl.property.no_init()]
        with sycl.host_accessor(src, sycl.read_only) as out, \\
                sycl.host_accessor(dst, sycl.write_only, prop_list=no_init) as into:
            comm.Sendrecv(out, 0, 0, into, 0, 0)
        with sycl.host_accessor(dst, sycl.read_only) as got:
            print("received", np.asarray(got).tolist())
            try:
                comm.Sendrecv(np.zeros(6), 0, 0, got, 0, 0)
            except BufferError as refused:
                print("refused:", refused)
    """, env={"POCL_DEVICES": "pthread"})
    assert done.returncode == 0, done.stderr
    assert "received [[2.5, 2.5, 2.5], [2.5, 2.5, 2.5]]" in done.stdout
    assert "refused:" in done.stdout and "writable" in done.stdout


def test_the_weak_scaling_runner_runs_the_example_and_its_raw_twin(mpiexec: str, tmp_path: Path) -> None:
    """``python -m bench.mpi_scaling --quick``: the example (copies, graphs, host accessors) and
    bench/mpi_jacobi_raw.py on one and two ranks, their medians and efficiencies in the JSON."""
    env = dict(os.environ, **RANK_ENV)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    out = tmp_path / "scaling.json"
    done = subprocess.run([sys.executable, "-m", "bench.mpi_scaling", "--quick", "--json", str(out)],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=LIMIT_S)
    assert done.returncode == 0, done.stdout + done.stderr
    result = json.loads(out.read_text())
    programs = result["summary"]["64x256"]
    assert set(programs) == {"sycl_ocl copies", "sycl_ocl graphs", "sycl_ocl host accessors",
                            "sycl_ocl two queues", "raw pyopencl"}
    for rows in programs.values():
        assert set(rows) == {"1", "2"} and rows["1"]["weak_scaling_efficiency"] == 1.0
    assert sorted({(r["program"], r["ranks"]) for r in result["runs"]}) == sorted(
        (p, n) for p in programs for n in (1, 2))
