#!/usr/bin/env bash
# Long fuzzing run of the wire decoders (CLC, LLC, CDC), niced so other work
# keeps the CPU. Prints each target's execution count.
#   usage: scripts/fuzz-wire.sh [SECONDS_PER_TARGET] [WORK_DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-300}
work=${2:-$here/build/fuzz-wire}
exec nice -n 10 bash "$here/tests/fuzz/run_fuzzers.sh" "$here" "$work" "$seconds"
