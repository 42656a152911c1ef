# sycl_ocl: `make demo` sets everything up and runs the quick start; `make test` runs the tests.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test lint suite unit opencl install bench conformance clean package pip-only

demo: install
	$(BIN)/python -m sycl_ocl ls
	$(BIN)/python examples/quickstart.py

# Everything CI runs (.ci/run is `make test`): each step is a target of its own.
test: install lint unit suite docs conformance-ci package pip-only

lint: install
	$(BIN)/ruff check sycl_ocl tests examples bench conformance
	$(BIN)/mypy
	$(BIN)/lint-imports

suite: install
	cd tests && $(abspath $(BIN))/python -m pytest -p no:cacheprovider $(PYTEST_ARGS) .

# The documentation (Sphinx) into build/docs; warnings are errors.
.PHONY: docs
docs: install
	$(BIN)/sphinx-build -W --keep-going -q -b html docs build/docs

# The device-free tests (the scheduler's pure logic, imports) with no OpenCL platform installed.
unit: install
	cd tests && OCL_ICD_VENDORS=$$(mktemp -d) $(abspath $(BIN))/python -m pytest -p no:cacheprovider --confcutdir=unit unit

opencl:
	bash tools/install_opencl.sh

$(BIN)/python: | opencl
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

# Installs the built package (not the checkout) so tests see what users get.
$(STAMP): $(BIN)/python pyproject.toml $(shell find sycl_ocl kernels_cl -type f -not -name '*.pyc')
	rm -rf build  # setuptools would ship modules deleted since the last build
	$(BIN)/python -m pip install -q --upgrade ".[dev]"
	touch $(STAMP)

install: opencl $(STAMP)

# The wheel and the sdist into build/dist, checked: `twine check`, then what the wheel holds
# (tests/test_package.py: the kernels and the conformance suite in, tests out).
package: install
	rm -rf build/dist
	$(BIN)/python -m build -q --outdir build/dist .
	$(BIN)/twine check --strict build/dist/*
	cd tests && SYCL_OCL_WHEEL=$$(ls $(abspath build/dist)/*.whl) $(abspath $(BIN))/python -m pytest -p no:cacheprovider -q test_package.py

# README.md's pip-only install in a fresh venv that sees no system OpenCL driver (tools/pip_only.sh).
pip-only: package
	bash tools/pip_only.sh build/dist/*.whl $(PYTHON)

# BENCH_ARGS: e.g. --device NVIDIA --json bench/results/nvidia-h100-2026-11-25-all.json (bench/README.md).
bench: install
	$(BIN)/python -m bench $(BENCH_ARGS)

# CONFORMANCE_DEVICE: regex over "platform / device" (default: every device).
conformance: install
	$(BIN)/python -m conformance --device "$(CONFORMANCE_DEVICE)" --report-dir reports

# The conformance suite on PoCL (two devices, for the multi-device scenarios) and Oclgrind.
.PHONY: conformance-ci
conformance-ci: install
	POCL_DEVICES="pthread pthread" $(BIN)/python -m conformance --device 'Portable Computing Language' --report-dir build/conformance
	$(BIN)/python -m conformance --device Oclgrind --report-dir build/conformance

# The randomized DAG programs (a new seed each round) and the fault sweep (in a random order)
# in turn, for FUZZ_SECONDS in all; then the thread stress for a quarter of that, the long run
# at 4x (400,000 commands) and 10,000 rounds of the collector pattern (docs/reliability.md);
# last, every range size 1..2,000 and 400 random ranges in 2-D and 3-D (RANGE_SWEEP=full,
# tests/test_range_rounding.py; `make test` runs a fixed sample).
FUZZ_SECONDS ?= 600
.PHONY: fuzz
fuzz: install
	cd tests && end=$$(( $$(date +%s) + $(FUZZ_SECONDS) )); \
	while [ $$(date +%s) -lt $$end ]; do \
		seed=$$(od -An -N4 -tu4 /dev/urandom | tr -d ' '); echo "fuzz round, seed $$seed"; \
		FUZZ_SECONDS=$(FUZZ_SECONDS) $(abspath $(BIN))/python -m pytest -p no:cacheprovider -q -x \
			test_randomized.py -k pocl --hypothesis-seed=$$seed || exit 1; \
		left=$$(( end - $$(date +%s) )); [ $$left -gt 0 ] || break; \
		FAULT_SWEEP_SEED=$$seed FAULT_SWEEP_SECONDS=$$left $(abspath $(BIN))/python -m pytest \
			-p no:cacheprovider -q -x test_faults.py -k sweep || exit 1; \
	done
	cd tests && SYCL_OCL_STRESS_SECONDS=$$(( $(FUZZ_SECONDS) / 4 )) SYCL_OCL_HYGIENE_SCALE=4 SYCL_OCL_CYCLES=10000 \
		$(abspath $(BIN))/python -m pytest -p no:cacheprovider -q -x test_stress.py test_buffer.py -k "Portable and (model or flat or collect)"
	cd tests && RANGE_SWEEP=full $(abspath $(BIN))/python -m pytest -p no:cacheprovider -q -x test_range_rounding.py

# `make lint unit suite` under each Python 3.10-3.13 found on this machine, a venv each
# (.venv310, ...); MATRIX_PYTHONS picks versions (tools/python_matrix.sh).
.PHONY: matrix
matrix:
	bash tools/python_matrix.sh

clean:
	rm -rf $(VENV) build *.egg-info
