#!/usr/bin/env bash
# `make matrix`: `make lint unit suite` under every supported Python found on this machine, one
# after the other, each in a venv of its own (.venv310, .venv311, ...); a summary at the end.
# A version is found as pyenv's newest 3.X.* ($PYENV_ROOT, default ~/.pyenv), else python3.X on
# PATH; a version not found is skipped with the reason printed. Exits 1 if any version failed.
#   MATRIX_PYTHONS  the versions to try (default: 3.10 3.11 3.12 3.13, pyproject's range)
#   MATRIX_TARGETS  the make targets of each run (default: lint unit suite)
set -uo pipefail
cd "$(dirname "$0")/.."

versions=${MATRIX_PYTHONS:-3.10 3.11 3.12 3.13}
targets=${MATRIX_TARGETS:-lint unit suite}
pyenv_root=${PYENV_ROOT:-$HOME/.pyenv}
logs=reports/matrix  # not build/: make install empties it
mkdir -p "$logs"

find_python() {  # the interpreter of version $1, or nothing
  local found
  found=$(ls -d "$pyenv_root"/versions/"$1".[0-9]*/bin/python3 2>/dev/null | sort -V | tail -n 1)
  [ -n "$found" ] || found=$(command -v "python$1" || true)
  echo "$found"
}

summary=()
failed=0
for version in $versions; do
  python=$(find_python "$version")
  if [ -z "$python" ]; then
    summary+=("Python $version: skipped (not in $pyenv_root/versions, no python$version on PATH)")
    echo "matrix: ${summary[-1]}"
    continue
  fi
  log=$logs/$version.log
  echo "matrix: Python $version ($python): make $targets, log in $log"
  if make -k $targets VENV=".venv${version/./}" PYTHON="$python" 2>&1 | tee "$log"; then
    result=passed
  else
    result=FAILED
    failed=1
  fi
  counts=$(grep -E '^=+ .*(passed|failed).* in [0-9.]+s' "$log" | sed -E 's/^=+ (.*) =+$/\1/' | paste -sd '|' | sed 's/|/ | /g')
  summary+=("Python $version ($("$python" -V 2>&1)): $result; pytest: ${counts:-no run}")
done

echo
echo "matrix summary ($targets):"
printf '  %s\n' "${summary[@]}"
exit $failed
