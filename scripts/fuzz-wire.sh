#!/usr/bin/env bash
# Long fuzzing run of the wire decoders (CLC, LLC, CDC) and the agent's
# control-message parser (JSON), at the lowest CPU priority so other work
# keeps the machine. Runs the targets one after another, each for a time or
# an execution count, and prints per target its executions, time,
# executions per second and crashes. Exit 0 = no crash in any target.
#
#   usage: scripts/fuzz-wire.sh [-t SECONDS | -n RUNS] [-d WORK_DIR] [TARGETS...]
#          scripts/fuzz-wire.sh [SECONDS_PER_TARGET] [WORK_DIR] [TARGETS...]   (older form)
#   -t SECONDS   each target runs this long (default 300)
#   -n RUNS      each target runs this many executions instead (e.g. -n 10000000)
#   -d WORK_DIR  the clang build and the corpora (default BUILD/fuzz-wire; kept between runs)
#   targets: clc llc cdc clc_v2 llc_v2 json (default: all)
#   FUZZ_RUNS=N in the environment is the same as -n N.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
usage() { sed -n 's/^#   usage: //p; s/^#          //p' "$0" >&2; exit 2; }
seconds=300
work=$here/build/fuzz-wire
runs=${FUZZ_RUNS:-}
if [ $# -gt 0 ] && [[ $1 == -* ]]; then
    while getopts "t:n:d:h" opt; do
        case $opt in
            t) seconds=$OPTARG ;;
            n) runs=$OPTARG ;;
            d) work=$OPTARG ;;
            *) usage ;;
        esac
    done
    shift $(( OPTIND - 1 ))
else
    seconds=${1:-300}
    work=${2:-$work}
    shift $(( $# >= 2 ? 2 : $# ))
fi
[[ $seconds =~ ^[0-9]+$ ]] || usage
[ -z "$runs" ] || [[ $runs =~ ^[0-9]+$ ]] || usage
for t in "$@"; do
    case $t in clc|llc|cdc|clc_v2|llc_v2|json) ;; *) echo "fuzz-wire: unknown target '$t' (clc llc cdc clc_v2 llc_v2 json)" >&2; exit 2 ;; esac
done
if [ -n "$runs" ]; then
    echo "fuzz-wire: ${runs} executions per target, work dir ${work}"
    export FUZZ_RUNS=$runs
else
    echo "fuzz-wire: ${seconds} s per target, work dir ${work}"
    unset FUZZ_RUNS
fi
exec nice -n 19 bash "$here/tests/fuzz/run_fuzzers.sh" "$here" "$work" "$seconds" "$@"
