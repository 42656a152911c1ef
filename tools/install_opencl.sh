#!/usr/bin/env bash
# Make sure an OpenCL platform and python3-venv exist (Debian/Ubuntu, as root).
# Idempotent: does nothing when an ICD is registered and venv works.
# With --ci it also installs Oclgrind as a second platform and PoCL's missing
# built-in-kernel source (see docs/deviations.md and ENVIRONMENT.md).
set -euo pipefail

need_apt=()
if ! ls /etc/OpenCL/vendors/*.icd >/dev/null 2>&1; then
  need_apt+=(pocl-opencl-icd)
fi
if ! python3 -c 'import ensurepip, venv' >/dev/null 2>&1; then
  py=$(python3 -c 'import sys; print(f"python3.{sys.version_info.minor}")')
  need_apt+=(python3-venv "${py}-venv")
fi
if [ "${1:-}" = "--ci" ]; then
  [ -e /usr/lib/oclgrind/liboclgrind-rt-icd.so ] || need_apt+=(oclgrind)
  [ -e /usr/share/pocl/common_builtin_kernels.cl ] || need_apt+=(pocl-source)
  dpkg -s pocl-opencl-icd >/dev/null 2>&1 || need_apt+=(pocl-opencl-icd)
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

if [ "${1:-}" = "--ci" ]; then
  mkdir -p /etc/OpenCL/vendors
  echo /usr/lib/oclgrind/liboclgrind-rt-icd.so > /etc/OpenCL/vendors/oclgrind.icd
  if [ ! -e /usr/share/pocl/common_builtin_kernels.cl ] && [ -e /usr/src/pocl.tar.xz ]; then
    tar -xJf /usr/src/pocl.tar.xz -O pocl/lib/CL/devices/common_builtin_kernels.cl \
      > /usr/share/pocl/common_builtin_kernels.cl
  fi
fi
