"""``python -m sycl_ocl ls`` / ``sycl-ocl-ls``: the device listing, verbose details, and the
explanation printed when no OpenCL platform exists (run in a subprocess with an empty ICD folder)."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import sycl_ocl as sycl
from sycl_ocl.__main__ import device_descriptors, main
from sycl_ocl.info._descriptor import descriptors_of

ROOT = Path(__file__).resolve().parents[1]


def _run_ls(*args: str) -> tuple[int, str]:
    out = io.StringIO()
    return main(list(args), out=out), out.getvalue()


def test_one_line_per_device_with_backend_type_platform_device_version_driver() -> None:
    status, text = _run_ls("ls")
    assert status == 0
    lines = text.splitlines()
    devices = sycl.device.get_devices()
    assert len(lines) == len(devices)
    for index, (line, dev) in enumerate(zip(lines, devices, strict=True)):
        kind = dev.get_info(sycl.info.device.device_type).name
        assert line.startswith(f"[opencl:{kind}:{index}] ")
        for text_part in (
            dev.get_platform().get_info(sycl.info.platform.name),
            dev.get_info(sycl.info.device.name),
            dev.get_info(sycl.info.device.version),
            dev.get_info(sycl.info.device.driver_version),
        ):
            assert text_part in line


def test_no_command_means_ls() -> None:
    assert _run_ls() == _run_ls("ls")


def test_verbose_prints_every_descriptor_and_the_aspects() -> None:
    status, text = _run_ls("ls", "--verbose")
    assert status == 0
    for desc in descriptors_of(vars(sycl.info.platform)):
        assert f"  {desc.name}: " in text
    for desc in device_descriptors():
        assert f"    {desc.name}: " in text
    assert "max_work_item_sizes<3>: sycl.range(" in text
    for dev in sycl.device.get_devices():
        names = ", ".join(a.name for a in sycl.aspect if dev.has(a))
        assert f"    aspects: [{names}]\n" in text


def _ls_subprocess(vendors: Path) -> subprocess.CompletedProcess[str]:
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    env = {**os.environ, "OCL_ICD_VENDORS": str(vendors), "PYTHONPATH": path}
    return subprocess.run(
        [sys.executable, "-m", "sycl_ocl", "ls"],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_no_platform_says_why_and_how_to_install(tmp_path: Path) -> None:
    result = _ls_subprocess(tmp_path)
    assert result.returncode == 1, result.stderr
    assert "No OpenCL platform found" in result.stdout
    assert f"No ICD file (*.icd) in {tmp_path} (OCL_ICD_VENDORS)" in result.stdout
    assert "apt-get install pocl-opencl-icd" in result.stdout
    assert "make demo" in result.stdout
    assert "pip install \"sycl_ocl[pocl]\"" in result.stdout
    assert "*.icd files, each holding the path of one driver library" in result.stdout
    assert f"OCL_ICD_VENDORS is set to {tmp_path}: unset it to use /etc/OpenCL/vendors" in result.stdout


def test_a_driver_that_fails_to_load_is_named(tmp_path: Path) -> None:
    (tmp_path / "broken.icd").write_text("/nonexistent/libbroken-opencl.so\n")
    result = _ls_subprocess(tmp_path)
    assert result.returncode == 1, result.stderr
    assert "the driver /nonexistent/libbroken-opencl.so fails to load" in result.stdout


def test_a_reader_that_stops_early_gets_no_traceback() -> None:
    """``sycl-ocl-ls --verbose | head``: the closed pipe ends the listing quietly."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "sycl_ocl", "ls", "--verbose"],
        cwd=Path(__file__).parent,  # the installed package
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # the reader is gone before the first line
    err = proc.stderr.read()
    assert proc.wait(timeout=120) == 1
    assert "Traceback" not in err and "BrokenPipeError" not in err, err
