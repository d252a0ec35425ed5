#!/usr/bin/env bash
# Long fuzzing run of the wire decoders (CLC, LLC, CDC) and the agent's
# control-message parser (JSON), at the lowest CPU priority so other work
# keeps the machine. Prints each target's execution count and crashes.
#   usage: scripts/fuzz-wire.sh [SECONDS_PER_TARGET] [WORK_DIR] [TARGETS...]
#   FUZZ_RUNS=10000000 scripts/fuzz-wire.sh   runs each target for 10^7 executions instead
#   targets: clc llc cdc json (default: all)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-300}
work=${2:-$here/build/fuzz-wire}
shift $(( $# >= 2 ? 2 : $# ))
exec nice -n 19 bash "$here/tests/fuzz/run_fuzzers.sh" "$here" "$work" "$seconds" "$@"
