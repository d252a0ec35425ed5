#!/usr/bin/env bash
# Builds the tests of the given labels under a sanitizer and runs them.
#   address: ASan + UBSan (leaks included), halts on the first report
#   thread:  TSan, halts on the first report
# Only the targets those tests need are built (GUI off), at -O1 -g, which
# keeps both the build and the sanitized runs short on a small machine.
#   usage: scripts/sanitize.sh address|thread [BUILD_DIR] [LABEL_REGEX] [CTEST_ARGS...]
#   default labels: address "engine|wire|fabric|unit", thread "engine|fabric"
#   SANITIZE_EXCLUDE=REGEX leaves out the tests whose names match (ctest -E)
# Exit status: ctest's (0 = every selected test passed or skipped).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
kind=${1:-}
case $kind in
    address) labels_default="engine|wire|fabric|unit" ;;
    thread) labels_default="engine|fabric" ;;
    *) sed -n 's/^#   usage: //p' "$0" >&2; exit 2 ;;
esac
build=${2:-$here/build-$([ "$kind" = address ] && echo asan || echo tsan)}
# Absolute: the tests' commands in CTestTestfile.cmake are looked up by it.
build=$(realpath -m "$build")
labels=${3:-$labels_default}
shift $(( $# >= 3 ? 3 : $# ))

start=$(date +%s)
cmake -S "$here" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g" \
    -DSMCLAB_SANITIZE="$kind" -DSMCLAB_WERROR=ON -DSMCLAB_BUILD_GUI=OFF -DSMCLAB_CI_SANITIZE=OFF >/dev/null

# The programs of the selected tests: the first word of each test's command
# when it is a program of this build (smclab_add_test names each target
# after its test; add_dependencies pulls in peers such as smcr_test_peer).
exclude=()
if [ -n "${SANITIZE_EXCLUDE:-}" ]; then exclude=(-E "$SANITIZE_EXCLUDE"); fi
mapfile -t names < <(ctest --test-dir "$build" -N -L "$labels" "${exclude[@]}" | sed -n 's/^ *Test *#[0-9]*: *\([^ ]*\).*/\1/p')
targets=()
for name in "${names[@]}"; do
    exe=$(grep -rh --include=CTestTestfile.cmake -F "add_test([=[$name]=] \"$build/" "$build" |
        sed -n 's/^add_test(\[=\[[^]]*\]=\] "\([^"]*\)".*/\1/p' | head -n 1 || true)
    [ -n "$exe" ] && targets+=("$(basename "$exe")")
done
mapfile -t targets < <(printf '%s\n' "${targets[@]}" | sort -u | grep .)
if [ ${#targets[@]} -eq 0 ]; then
    echo "sanitize: no tests with labels '$labels'" >&2
    exit 1
fi
echo "sanitize ($kind): building ${#targets[@]} targets in $build"
cmake --build "$build" -j2 --target "${targets[@]}"
built=$(date +%s)

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1:suppressions=$here/scripts/tsan.supp}
set +e
ctest --test-dir "$build" -L "$labels" "${exclude[@]}" --output-on-failure --timeout 600 "$@"
rc=$?
set -e
end=$(date +%s)
echo "sanitize ($kind): build $((built - start)) s, tests $((end - built)) s, ctest exit $rc"
exit $rc
