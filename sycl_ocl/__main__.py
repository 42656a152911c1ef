"""``python -m sycl_ocl ls`` (also the ``sycl-ocl-ls`` script): list the devices, like ``sycl-ls``;
``python -m sycl_ocl trace SCRIPT [args]``: run a script and draw what it did (``sycl_ocl.tools.cli``).

One line per device: backend, device type, index, platform, device, OpenCL version and
driver version. ``--verbose`` adds every platform and device information descriptor and the
aspects. With no platform at all it says why (no ICD file, a driver that fails to load) and
how to install one.
"""

from __future__ import annotations

import argparse
import ctypes
import enum
import os
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, TextIO

import sycl_ocl as sycl
from sycl_ocl import _discovery
from sycl_ocl.info._descriptor import descriptor, descriptors_of
from sycl_ocl.tools.cli import run_traced

DEFAULT_VENDORS_DIR = "/etc/OpenCL/vendors"
INSTALL_HINT = (
    "Two fixes. Without root: `pip install \"sycl_ocl[pocl]\"` puts a CPU driver (PoCL) into "
    "this Python environment. With root: install PoCL system-wide, `apt-get install pocl-opencl-icd`, "
    "or run `make demo` in the sycl_ocl repository, which installs PoCL and lists the devices. "
    "GPU drivers: intel-opencl-icd, mesa-opencl-icd, or the vendor's (NVIDIA's ships with its driver)."
)
ICD_HOW = (
    "The OpenCL ICD loader finds drivers through *.icd files, each holding the path of one "
    "driver library: in {default}, or in the folder (or the one file) that OCL_ICD_VENDORS names."
)


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    """Entry point of ``python -m sycl_ocl`` and ``sycl-ocl-ls``; returns the exit status."""
    parser = argparse.ArgumentParser(prog="sycl-ocl-ls", description="List the SYCL devices sycl_ocl sees.")
    if argv is None:
        argv = sys.argv[1:]
    if argv and argv[0] == "trace":
        return run_traced(argv[1:])
    parser.add_argument("command", nargs="?", choices=["ls", "trace"], default="ls",
                        help="what to do (default: ls); `trace SCRIPT [args]`: see `trace --help`")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every info descriptor and aspect")
    args = parser.parse_args(argv)
    stream = out if out is not None else sys.stdout
    try:
        status = list_devices(stream, args.verbose)
        stream.flush()
    except BrokenPipeError:
        # The reader stopped early (`sycl-ocl-ls --verbose | head`). Python would report the
        # failed flush of stdout again at exit, so what is left goes to /dev/null.
        if stream is sys.stdout:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    return status


def list_devices(stream: TextIO, verbose: bool) -> int:
    """Write the device lines (and with ``verbose`` the details); returns the exit status."""
    try:
        platforms = sycl.platform.get_platforms()
    except sycl.exception as error:  # the ICD loader itself failed
        stream.write(f"Listing the OpenCL platforms failed: {error}\n" + explain_no_platform())
        return 1
    if not platforms:
        stream.write(explain_no_platform())
        return 1
    for dev in sycl.device.get_devices():
        stream.write(device_line(dev) + "\n")
    if verbose:
        for plat in platforms:
            stream.write(platform_details(plat))
    return 0


def device_line(dev: sycl.device) -> str:
    """``[opencl:cpu:0] platform / device | version | driver``, as ``sycl-ls`` prints it; the
    bracketed part is the filter string that selects the device (``sycl.device("opencl:cpu:0")``)."""
    info = sycl.info.device
    plat = dev.get_platform().get_info(sycl.info.platform.name)
    return (
        f"[{_discovery.filter_name(dev)}] {plat} / {dev.get_info(info.name)} | "
        f"{dev.get_info(info.version)} | driver {dev.get_info(info.driver_version)}"
    )


def platform_details(plat: sycl.platform) -> str:
    """Every platform descriptor, then every device's descriptors (its aspects among them)."""
    lines = [f"\nPlatform: {plat.get_info(sycl.info.platform.name)}"]
    lines += _descriptor_lines(plat, descriptors_of(vars(sycl.info.platform)), "  ")
    for dev in plat.get_devices():
        lines.append(f"  Device: {dev.get_info(sycl.info.device.name)}")
        lines += _descriptor_lines(dev, device_descriptors(), "    ")  # info.device.aspects included
    return "\n".join(lines) + "\n"


def device_descriptors() -> list[descriptor]:
    """Every ``sycl.info.device`` descriptor, the sized ``max_work_item_sizes[N]`` included."""
    return descriptors_of(vars(sycl.info.device))


def _descriptor_lines(obj: Any, descs: Iterable[descriptor], indent: str) -> list[str]:
    lines = []
    for desc in descs:
        try:
            value = _show(obj.get_info(desc))
        except sycl.exception as error:
            value = f"(not available: {error})"
        lines.append(f"{indent}{desc.name}: {value}")
    return lines


def _show(value: Any) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(_show(v) for v in value) + "]"
    if isinstance(value, enum.Enum):
        return value.name
    if isinstance(value, sycl.device | sycl.platform):
        return repr(value)
    return str(value)


def explain_no_platform() -> str:
    """Why the ICD loader found no OpenCL platform, and how to get one."""
    source = os.environ.get("OCL_ICD_VENDORS")
    where = source or DEFAULT_VENDORS_DIR
    icds = _icd_files(Path(where))
    lines = ["No OpenCL platform found, so sycl_ocl has no device."]
    origin = "OCL_ICD_VENDORS" if source else "the default ICD folder"
    if not icds:
        lines.append(f"No ICD file (*.icd) in {where} ({origin}): no OpenCL driver is registered.")
    for icd in icds:
        lines.append(_check_icd(icd))
    lines.append(ICD_HOW.format(default=DEFAULT_VENDORS_DIR))
    if source:
        lines.append(f"OCL_ICD_VENDORS is set to {source}: unset it to use {DEFAULT_VENDORS_DIR}.")
    lines.append(INSTALL_HINT)
    return "\n".join(lines) + "\n"


def _icd_files(where: Path) -> list[Path]:
    if where.is_file():
        return [where]
    if where.is_dir():
        return sorted(p for p in where.iterdir() if p.suffix == ".icd")
    return []


def _check_icd(icd: Path) -> str:
    try:
        library = icd.read_text().strip()
    except OSError as error:
        return f"{icd}: cannot be read ({error})"
    try:
        ctypes.CDLL(library)
    except OSError as error:
        return f"{icd}: the driver {library} fails to load: {error}"
    return f"{icd}: the driver {library} loads but reports no platform"


if __name__ == "__main__":
    sys.exit(main())
