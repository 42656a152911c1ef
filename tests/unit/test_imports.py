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


# What a bare ``import sycl_ocl`` loads (docs/performance.md, "Import time"): the object model;
# the runtime and the extensions load on first access of a name that needs them.
LAZY_MODULES = [
    "sycl_ocl._queue", "sycl_ocl._handler", "sycl_ocl._buffer", "sycl_ocl._accessor", "sycl_ocl._event",
    "sycl_ocl.scheduler", "sycl_ocl._kernel_bundle", "sycl_ocl.graph", "sycl_ocl.ext", "sycl_ocl.usm",
    "sycl_ocl.interop", "sycl_ocl.library", "sycl_ocl._command_buffer", "sycl_ocl.scheduler.trace",
    "sycl_ocl.tools",
]

LOADED = """
import json, sys
import sycl_ocl
bare = sorted(m for m in sys.modules if m.startswith("sycl_ocl"))
{use}
print(json.dumps([bare, sorted(m for m in sys.modules if m.startswith("sycl_ocl"))]))
"""


def _loaded(use: str) -> tuple[list[str], list[str]]:
    """The sycl_ocl modules a fresh interpreter holds after ``import sycl_ocl``, then after ``use``."""
    child = [sys.executable, "-c", LOADED.format(use=use)]
    done = subprocess.run(child, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    bare, used = json.loads(done.stdout.splitlines()[-1])
    return bare, used


def test_bare_import_loads_only_the_object_model() -> None:
    bare, used = _loaded("sycl_ocl.queue, sycl_ocl.ext.oneapi.experimental, sycl_ocl.malloc_device, "
                         "sycl_ocl.library, sycl_ocl.make_queue, sycl_ocl.tools.build_cache_stats")
    assert "sycl_ocl._device" in bare and "sycl_ocl._context" in bare
    runtime = ("sycl_ocl.scheduler.", "sycl_ocl._kernel_bundle.")
    assert not [m for m in bare if m in LAZY_MODULES or m.startswith(runtime)]
    assert set(LAZY_MODULES) <= set(used)


@pytest.mark.parametrize("use", [
    "",
    "import sycl_ocl.ext.oneapi.experimental",  # loads _queue.py, _handler.py, ... through the graph
    "from sycl_ocl._queue import queue; from sycl_ocl._kernel_bundle import kernel_bundle",
    "import sycl_ocl._accessor, sycl_ocl._buffer, sycl_ocl._event, sycl_ocl._handler, "
    "sycl_ocl._interop_handle",
])
def test_public_names_survive_their_modules_loading(use: str) -> None:
    """``sycl_ocl.queue`` is the class however its module got loaded (the import system binds
    each loaded submodule on the package), and every name of ``__all__`` is in ``dir()``."""
    check = f"""
{use}
import types, sycl_ocl
assert set(sycl_ocl.__all__) <= set(dir(sycl_ocl))
wrong = [n for n in sycl_ocl.__all__ if isinstance(getattr(sycl_ocl, n), types.ModuleType)
         and n not in ("ext", "info", "library", "property", "tools", "usm")]
assert not wrong, wrong
from sycl_ocl import queue, usm_ptr
assert sycl_ocl.queue is queue and queue.__module__ == "sycl_ocl._queue"
"""
    done = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
