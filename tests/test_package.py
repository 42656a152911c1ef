"""The wheel: what it holds (sycl_ocl with its kernels, the conformance suite; no tests), its
metadata (license, extras, console scripts) and a description that reads on an index page.

The wheel checks need the wheel that ``make package`` builds and passes in ``SYCL_OCL_WHEEL``
(building one needs the network, which the GPU machine lacks); the checks of the checkout
itself always run.
"""

from __future__ import annotations

import os
import re
import zipfile
from email.message import Message
from email.parser import Parser

import pytest
from kernel_support import ROOT


@pytest.fixture(scope="module")
def wheel() -> zipfile.ZipFile:
    given = os.environ.get("SYCL_OCL_WHEEL")
    if not given:
        pytest.skip("no wheel: `make package` builds one and runs these checks with SYCL_OCL_WHEEL set")
    return zipfile.ZipFile(given)


def _names(wheel: zipfile.ZipFile) -> set[str]:
    return set(wheel.namelist())


def _metadata(wheel: zipfile.ZipFile) -> Message:
    (name,) = (n for n in wheel.namelist() if n.endswith(".dist-info/METADATA"))
    return Parser().parsestr(wheel.read(name).decode())


def _files(folder: str, pattern: str = "*") -> set[str]:
    """The files under ``folder`` of the checkout, as paths from its top."""
    found = (ROOT / folder).rglob(pattern)
    return {p.relative_to(ROOT).as_posix() for p in found if p.is_file() and "__pycache__" not in p.parts}


def test_every_module_and_kernel_source_is_in_the_wheel(wheel: zipfile.ZipFile) -> None:
    names = _names(wheel)
    assert _files("sycl_ocl", "*.py") <= names
    kernels = {f"sycl_ocl/{k}" for k in _files("kernels_cl")}  # sycl_ocl/kernels_cl links there
    assert kernels and kernels <= names
    assert "sycl_ocl/py.typed" in names


def test_the_conformance_suite_is_in_the_wheel_and_the_tests_are_not(wheel: zipfile.ZipFile) -> None:
    names = _names(wheel)
    assert _files("conformance", "*.py") - _files("conformance/results") <= names
    assert "conformance/SCENARIOS.md" in names
    tops = {n.split("/")[0] for n in names}
    assert tops == {"sycl_ocl", "conformance", next(t for t in tops if t.endswith(".dist-info"))}
    # Of the results, the reproducers the reports name (docs/conformance.md), not the reports.
    assert _files("conformance/results", "repro_*.py") <= names
    assert not [n for n in names if (n.startswith("conformance/results/") and "/repro_" not in n)
                or "__pycache__" in n]


def test_every_reproducer_a_category_names_exists() -> None:
    """Each ``conformance/results/...`` script a category's expected failure names is there
    (so the wheel, which holds them all, holds it)."""
    named = {m for p in (ROOT / "conformance" / "categories").glob("*.py")
             for m in re.findall(r"conformance/results/[\w.-]+/[\w.-]+\.py", p.read_text())}
    assert named and not [n for n in named if not (ROOT / n).is_file()]


def test_metadata_license_extras_and_scripts(wheel: zipfile.ZipFile) -> None:
    meta = _metadata(wheel)
    assert meta["License-Expression"] == "MIT"
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in wheel.namelist())
    assert {"pocl", "conformance", "trace", "docs", "test", "mpi"} <= set(meta.get_all("Provides-Extra"))
    requires = meta.get_all("Requires-Dist")
    # The PoCL tested by `make pip-only` (3.0); the 1.x releases PyOpenCL's extra allows are older.
    assert any(r.startswith("pocl-binary-distribution>=3.0;") and 'extra == "pocl"' in r for r in requires)
    assert any(c.startswith("Programming Language :: Python :: 3.1") for c in meta.get_all("Classifier"))
    (entry_points,) = (n for n in wheel.namelist() if n.endswith(".dist-info/entry_points.txt"))
    scripts = wheel.read(entry_points).decode()
    assert "sycl-ocl-ls = sycl_ocl.__main__:main" in scripts
    assert "sycl-ocl-conformance = conformance:console_main" in scripts


def test_the_description_has_no_links_that_break_on_an_index_page(wheel: zipfile.ZipFile) -> None:
    description = _metadata(wheel).get_payload()
    assert isinstance(description, str) and description.startswith("# sycl_ocl")
    targets = re.findall(r"\]\(([^)]+)\)", description)
    assert all(re.match(r"https?://", t) for t in targets), targets
    first_code = description.split("```", 2)[1]
    assert 'pip install "sycl_ocl[pocl]"' in first_code  # the pip-only install comes first


def test_the_readme_names_only_paths_that_exist() -> None:
    readme = (ROOT / "README.md").read_text()
    paths = set(re.findall(r"`((?:docs|conformance|examples|tools)/[\w./-]+)`", readme))
    assert paths and not [p for p in paths if not (ROOT / p).exists()]


def test_sycl_ocl_uses_no_private_pyopencl_program_internals() -> None:
    """Programs are created through PyOpenCL's public API (``_kernel_bundle/_program.py``), so a
    PyOpenCL release that reorganises its internals cannot break them."""
    private = re.compile(r"\b_cl\._\w+|\._prg\b|\._get_prg\b")
    uses = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in (ROOT / "sycl_ocl").rglob("*.py")
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if private.search(line)
    ]
    assert not uses
