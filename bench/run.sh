#!/usr/bin/env bash
# Runs the workload suite on Kiln (this build) and every OpenCL platform installed on the
# machine, in one run, and draws the table when matplotlib is there:
#
#   bench/run.sh [build-dir] [kiln-bench options]     e.g. bench/run.sh build --only sgemm
#
# Writes bench-results.csv, bench-results.json and bench-results.png in the current folder.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../build}" && pwd)
shift || true
vendors=$(mktemp -d)
trap 'rm -rf "$vendors"' EXIT
cp "$build/icd/kiln.icd" "$vendors/"
for icd in /etc/OpenCL/vendors/*.icd; do
  [ -e "$icd" ] && cp "$icd" "$vendors/"
done
status=0
OCL_ICD_VENDORS=$vendors "$build/bench/kiln-bench" --csv bench-results.csv \
  --json bench-results.json "$@" || status=$?
# The first Python that has matplotlib (Debian's python3-matplotlib is in /usr/bin's).
plotted=0
for python in python3 /usr/bin/python3; do
  if "$python" -c 'import matplotlib' 2>/dev/null; then
    "$python" "$here/plot.py" bench-results.csv bench-results.png && plotted=1
    break
  fi
done
[ $plotted = 1 ] || echo "(no plot: install python3-matplotlib)"
exit $status
