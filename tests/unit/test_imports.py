"""Every module of sycl_ocl imports first, in an interpreter where no other sycl_ocl module is
loaded, with the package's ``__init__`` left out: each module's own imports must be complete
and must not meet a half-made module. (Through ``import sycl_ocl`` every module would load in
the order the package's ``__init__`` happens to list, which hides an import knot.)

One helper interpreter loads numpy and PyOpenCL once and forks a child per module, so the
check costs one sycl_ocl import per module, not one interpreter start."""

from __future__ import annotations

import json
import pkgutil
import subprocess
import sys

import pytest

import sycl_ocl

MODULES = ["sycl_ocl", *sorted(m.name for m in pkgutil.walk_packages(sycl_ocl.__path__, "sycl_ocl."))]

HELPER = """
import importlib, importlib.util, json, os, sys
import numpy, pyopencl  # not sycl_ocl: loaded once, shared by the children

spec = importlib.util.find_spec("sycl_ocl")
results = {}
for name in json.loads(sys.argv[1]):
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        try:
            if name != "sycl_ocl":
                sys.modules["sycl_ocl"] = importlib.util.module_from_spec(spec)  # __init__ not run
            importlib.import_module(name)
            message = ""
        except BaseException as error:
            message = f"{type(error).__name__}: {error}"
        os.write(write, message.encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as pipe:
        results[name] = pipe.read()
    os.waitpid(pid, 0)
print(json.dumps(results))
"""


@pytest.fixture(scope="module")
def import_errors() -> dict[str, str]:
    """Each module's import error when imported first ("" when it imports)."""
    done = subprocess.run(
        [sys.executable, "-c", HELPER, json.dumps(MODULES)], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])  # type: ignore[no-any-return]


def test_the_package_has_modules() -> None:
    assert len(MODULES) > 50 and "sycl_ocl.scheduler.intervals" in MODULES


@pytest.mark.parametrize("name", MODULES)
def test_module_imports_first(name: str, import_errors: dict[str, str]) -> None:
    assert import_errors[name] == "", f"importing {name} first: {import_errors[name]}"
