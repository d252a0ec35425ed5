#!/usr/bin/env bash
# The engine and fabric tests under ThreadSanitizer (not in CI: a TSan build
# and run take too long for two cores next to the ASan pass).
#   usage: scripts/tsan.sh [BUILD_DIR] [CTEST_ARGS...]     (default BUILD_DIR: build-tsan)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build-tsan}
shift $(( $# >= 1 ? 1 : 0 ))
# The stream benchmark smoke run would pull the whole CLI into the TSan build.
export SANITIZE_EXCLUDE=${SANITIZE_EXCLUDE:-smoke_bench_stream}
exec bash "$here/scripts/sanitize.sh" thread "$build" "engine|fabric" "$@"
