"""Which OpenCL C source kills a driver's compiler: each one built with raw PyOpenCL (no sycl_ocl)
in a child process of its own, so a crash in ``clBuildProgram`` ends that child only.

The candidates are the units the conformance category kernel_bundle registered at commit
74f7a72, with the options sycl_ocl built them with (``get_kernel_bundle(executable, ctx)``
died with SIGFPE inside ``clBuildProgram`` on NVIDIA's OpenCL, driver 580.159.04), then
variants that tell which property of the culprit matters (the required work-group size, within
and beyond the device's limit of 1024, and whether the attribute comes before or after
``__kernel``). sycl_ocl no longer compiles a kernel whose required size exceeds the device's
limits (§4.11.7); the conformance test KB-72 still has the driver build such sources.

On the GPU machine, from the checkout:

    source tools/gpu_env.sh && python3 tools/bisect_build_crash.py NVIDIA

Prints one line per source (ok / build error / CRASHED with the signal) and exits with status 1
when any source crashed the compiler.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys

ARG_INFO = "-cl-kernel-arg-info"  # sycl_ocl builds every unit with it
BODY = "(__global int *d) { d[get_global_id(0)] = 1; }"


def _category_units() -> list[tuple[str, str, list[str]]]:
    """(label, source, options) of every unit of the kernel_bundle category at 74f7a72."""
    units = [
        (
            "cts_add_one + cts_scale",
            "__kernel void cts_add_one(__global int *data) { data[get_global_id(0)] += 1; }\n"
            "__kernel void cts_scale(__global int *data, int factor) { data[get_global_id(0)] *= factor; }\n",
            [],
        ),
        (
            "cts_spec",
            "__kernel void cts_spec(__global int *out) { out[0] = CTS_SPEC; }",
            ["-DCTS_SPEC=((int)10L)"],
        ),
    ]
    units += [
        (f"cts_kb_on_{a}", f"__kernel void cts_kb_on_{a}{BODY}", []) for a in ("cpu", "gpu", "accelerator")
    ]
    units += [
        (
            f"cts_kb_wg_{n} (reqd_work_group_size({n}, 1, 1) before __kernel)",
            f"__attribute__((reqd_work_group_size({n}, 1, 1))) __kernel void cts_kb_wg_{n}{BODY}",
            [],
        )
        for n in (1, 8, 16, 4294967295)
    ]
    units += [
        (
            "cts_kb_fp64",
            "__kernel void cts_kb_fp64(__global double *d) "
            "{ d[get_global_id(0)] = 2.0 * d[get_global_id(0)]; }",
            [],
        ),
        (
            "cts_kb_fp16",
            "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
            "__kernel void cts_kb_fp16(__global half *d) "
            "{ d[get_global_id(0)] = d[get_global_id(0)] * (half)2; }",
            [],
        ),
        (
            "cts_kb_atomic64",
            "#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable\n"
            "__kernel void cts_kb_atomic64(__global long *d) { atom_add(&d[0], 1L << 40); }",
            [],
        ),
    ]
    units += [
        (f"cts_kb_declares_{a}", f"__kernel void cts_kb_declares_{a}{BODY}", [])
        for a in ("fp16", "fp64", "atomic64")
    ]
    option_source = "__kernel void CTS_NAME(__global int *d) { d[get_global_id(0)] *= CTS_FACTOR; }"
    units += [
        ("cts_kb_option_a", option_source, ["-DCTS_NAME=cts_kb_option_a", "-DCTS_FACTOR=3"]),
        ("cts_kb_option_b", option_source, ["-DCTS_NAME=cts_kb_option_b", "-D", "CTS_FACTOR=5"]),
    ]
    return [(label, source, [*options, ARG_INFO]) for label, source, options in units]


def _variants() -> list[tuple[str, str, list[str]]]:
    """The required work-group size at each position, and a required sub-group size."""
    found = []
    for n in (1, 2, 4, 8, 16, 32, 64, 1024, 1025, 65536, 2147483648, 4294967295):
        found.append((
            f"variant: reqd_work_group_size({n}, 1, 1) before __kernel",
            f"__attribute__((reqd_work_group_size({n}, 1, 1))) __kernel void v_before_{n}{BODY}",
            [],
        ))
        found.append((
            f"variant: reqd_work_group_size({n}, 1, 1) after __kernel",
            f"__kernel __attribute__((reqd_work_group_size({n}, 1, 1))) void v_after_{n}{BODY}",
            [],
        ))
    found.append((
        "variant: reqd_work_group_size(1, 1, 1) after __kernel, without -cl-kernel-arg-info",
        f"__kernel __attribute__((reqd_work_group_size(1, 1, 1))) void v_plain_1{BODY}",
        [],
    ))
    found.append((
        "variant: intel_reqd_sub_group_size(32)",
        f"__attribute__((intel_reqd_sub_group_size(32))) __kernel void v_sg_32{BODY}",
        [],
    ))
    return [(label, source, options if "without" in label else [*options, ARG_INFO])
            for label, source, options in found]


# The child: build one source on the first device of the named platform, say how it went.
CHILD = """
import json, sys
import pyopencl as cl
name, source, options = json.loads(sys.stdin.read())
platform = next(p for p in cl.get_platforms() if name in p.name)
context = cl.Context([platform.get_devices()[0]])
try:
    cl.Program(context, source).build(options)
    print("ok")
except cl.Error as error:
    print(f"build error ({error.code})")
"""


def build_alone(platform: str, source: str, options: list[str]) -> str:
    """How building ``source`` went, in a child process: ok, build error or CRASHED."""
    try:
        done = subprocess.run(
            [sys.executable, "-c", CHILD], input=json.dumps([platform, source, options]),
            capture_output=True, text=True, timeout=300,
        )
    except subprocess.TimeoutExpired:
        return "HUNG (no answer in 300 s)"
    if done.returncode < 0:
        return f"CRASHED: {signal.Signals(-done.returncode).name}"
    if done.returncode != 0:
        return f"child failed (status {done.returncode}): {done.stderr.strip()[-200:]}"
    return done.stdout.strip().splitlines()[-1]


def main() -> int:
    platform = sys.argv[1] if len(sys.argv) > 1 else "NVIDIA"
    crashed = []
    for label, source, options in [*_category_units(), *_variants()]:
        outcome = build_alone(platform, source, options)
        print(f"{outcome:28s} {label}", flush=True)
        if outcome.startswith(("CRASHED", "HUNG")):
            crashed.append((label, source, options))
    print(f"\n{len(crashed)} source(s) crashed or hung the compiler of {platform!r}:")
    for label, source, options in crashed:
        print(f"- {label}\n  options: {' '.join(options)}\n  {source}")
    return 1 if crashed else 0


if __name__ == "__main__":
    sys.exit(main())
