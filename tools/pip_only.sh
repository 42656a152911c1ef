#!/usr/bin/env bash
# `make pip-only`: README.md's pip-only path, taken as a user without root or a system OpenCL
# driver takes it: a fresh venv, the wheel with its pocl and conformance extras, and an empty ICD
# folder (OCL_ICD_VENDORS), so that only the driver pip installed can be found. Then README.md's
# first example, `sycl-ocl-ls` and `sycl-ocl-conformance --category platform` must work.
# Usage: tools/pip_only.sh WHEEL [PYTHON]
set -euo pipefail
wheel=$(realpath "$1")
python=${2:-python3}
readme=$(realpath "$(dirname "$0")/../README.md")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$python" -m venv "$work/venv"
"$work/venv/bin/python" -m pip install -q "$wheel[pocl,conformance]"
mkdir "$work/no-icd"
export OCL_ICD_VENDORS="$work/no-icd"
cd "$work"  # away from the checkout: the installed package is what runs

"$work/venv/bin/sycl-ocl-ls" | tee ls.txt
grep -q "Portable Computing Language" ls.txt || { echo "pip-only: the pip-installed PoCL is not listed" >&2; exit 1; }
# README.md's first Python block, as a reader would paste it.
"$python" -c 'import sys; print(open(sys.argv[1]).read().split("```python\n", 1)[1].split("```", 1)[0])' \
    "$readme" > readme_example.py
if ! "$work/venv/bin/python" readme_example.py > example.txt 2>&1; then
    cat example.txt
    # A documented limit of the pip PoCL (README.md, "Install"), not a sycl_ocl failure: its
    # LLVM 14 does not know this CPU and every kernel build fails.
    if grep -q "unknown target CPU" example.txt; then
        echo "pip-only: skipped: the pip-installed PoCL cannot compile kernels on this CPU" \
             "($(grep -m1 -o "unknown target CPU[^\"]*" example.txt)); use a system PoCL here"
        exit 0
    fi
    echo "pip-only: README.md's first example failed" >&2
    exit 1
fi
cat example.txt
"$work/venv/bin/sycl-ocl-conformance" --category platform --report-dir reports
# Not run from a git checkout: the report names the installed version instead of a commit.
grep -q '"sycl_ocl_commit": "not run from a git checkout' reports/*.json \
    && grep -q '"sycl_ocl_version": "[0-9]' reports/*.json \
    || { echo "pip-only: the report does not record the installed version" >&2; exit 1; }
echo "pip-only: passed"
