#!/usr/bin/env bash
# Install everything sycl_ocl's demo and tests need on Debian/Ubuntu (as root):
# PoCL (the default CPU device), PoCL's built-in-kernel source (Debian ships PoCL without
# common_builtin_kernels.cl; see docs/deviations.md), Oclgrind as a second platform (the
# cross-context and OpenCL 1.2 paths, memory-error checks), and python3-venv.
# Idempotent: installs only what is missing.
set -euo pipefail

need_apt=()
dpkg -s pocl-opencl-icd >/dev/null 2>&1 || need_apt+=(pocl-opencl-icd)
[ -e /usr/lib/oclgrind/liboclgrind-rt-icd.so ] || need_apt+=(oclgrind)
if [ ! -e /usr/share/pocl/common_builtin_kernels.cl ]; then
  [ -e /usr/src/pocl.tar.xz ] || need_apt+=(pocl-source)
  command -v xz >/dev/null || need_apt+=(xz-utils)  # to unpack pocl.tar.xz
fi
if ! python3 -c 'import ensurepip, venv' >/dev/null 2>&1; then
  py=$(python3 -c 'import sys; print(f"python3.{sys.version_info.minor}")')
  need_apt+=(python3-venv "${py}-venv")
fi

if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "sycl_ocl needs these system packages: ${need_apt[*]}; run as root or install them" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  # python3.X-venv may not exist under that name everywhere; python3-venv is enough then.
  apt-get install -y -qq "${need_apt[@]}" || apt-get install -y -qq "${need_apt[@]/python3.*-venv/}"
fi

vendors=/etc/OpenCL/vendors
if [ ! -e "$vendors/oclgrind.icd" ] || [ ! -e /usr/share/pocl/common_builtin_kernels.cl ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "sycl_ocl needs root once to register Oclgrind and PoCL's built-in kernels" >&2
    exit 1
  fi
  mkdir -p "$vendors"
  echo /usr/lib/oclgrind/liboclgrind-rt-icd.so > "$vendors/oclgrind.icd"
  if [ ! -e /usr/share/pocl/common_builtin_kernels.cl ]; then
    tar -xJf /usr/src/pocl.tar.xz -O pocl/lib/CL/devices/common_builtin_kernels.cl \
      > /usr/share/pocl/common_builtin_kernels.cl
  fi
fi
