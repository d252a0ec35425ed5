#!/usr/bin/env bash
# Builds the fuzz targets with clang (libFuzzer + ASan + UBSan) in WORK_DIR:
# the wire decoders (clc, llc, cdc; clc_v2 and llc_v2 for the SMC-Rv2 forms)
# and the agent's control-message parser (json, when Qt 6 is found). Seeds
# their corpora with the known vectors and messages, and runs each target
# for SECONDS (or, with FUZZ_RUNS=N in the environment, for N executions). Fails on any crash; exits 77 (skip)
# without clang/libFuzzer. The build and the corpora are kept in WORK_DIR,
# so later runs are fast and start from what earlier runs found.
#   usage: run_fuzzers.sh SOURCE_DIR WORK_DIR [SECONDS_PER_TARGET] [TARGETS...]
set -euo pipefail

src=${1:?source dir}
work=${2:?work dir}
seconds=${3:-20}
shift $(( $# >= 3 ? 3 : $# ))
targets=("$@")
default_targets=(clc llc cdc clc_v2 llc_v2)

clangxx=$(command -v clang++ || command -v clang++-14 || true)
if [ -z "$clangxx" ]; then
    echo "run_fuzzers: clang++ not found; libFuzzer targets need clang (packaging/install-deps.sh installs it)"
    exit 77
fi
mkdir -p "$work"
probe="$work/probe.cpp"
echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }' > "$probe"
if ! "$clangxx" -fsanitize=fuzzer,address "$probe" -o "$work/probe" >"$work/probe.log" 2>&1; then
    echo "run_fuzzers: $clangxx cannot link -fsanitize=fuzzer (libclang-rt missing?):"
    cat "$work/probe.log"
    exit 77
fi

generator=()
if command -v ninja >/dev/null 2>&1; then generator=(-G Ninja); fi
if [ ! -f "$work/build/CMakeCache.txt" ]; then
    cmake -S "$src/tests/fuzz/standalone" -B "$work/build" "${generator[@]}" \
        -DCMAKE_CXX_COMPILER="$clangxx" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSMCLAB_SOURCE_DIR="$src" >/dev/null
fi
cmake --build "$work/build" -- -j2 >"$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }

if [ -x "$work/build/fuzz_json" ]; then default_targets+=(json); fi
if [ ${#targets[@]} -eq 0 ]; then targets=("${default_targets[@]}"); fi

mkdir -p "$work/corpus/clc" "$work/corpus/llc" "$work/corpus/cdc" "$work/corpus/clc_v2" "$work/corpus/llc_v2" \
    "$work/corpus/json" "$work/artifacts"
"$work/build/fuzz_seeds" "$work/corpus"
cp "$src"/tests/fuzz/json_seeds/*.json "$work/corpus/json/"

status=0
for target in "${targets[@]}"; do
    log="$work/fuzz_$target.log"
    set +e
    binary="$work/build/fuzz_wire_$target"
    extra=()
    asan_options=${ASAN_OPTIONS:-}
    if [ "$target" = json ]; then
        binary="$work/build/fuzz_json"
        extra+=(-dict="$src/tests/fuzz/json.dict")
        # Qt allocates a dozen blocks per message, and ASan records a stack
        # for each: unwinding by frame pointers through the system Qt (built
        # without them) yields garbage frames, each a new entry for the stack
        # depot to hash and store (half of every execution). Keep two frames
        # (the allocation site); detection is unchanged. For full stacks,
        # rerun an artifact with ASAN_OPTIONS=malloc_context_size=30:fast_unwind_on_malloc=0.
        asan_options="malloc_context_size=2${asan_options:+:$asan_options}"
        # libFuzzer returns the allocator's free memory to the kernel every
        # wall-clock second by default; on a loaded machine (nice 19, a
        # fraction of a core) that purge and refaulting the pages took half
        # of the CPU this process got. RSS stays bounded by -rss_limit_mb.
        extra+=(-purge_allocator_interval=-1)
    fi
    if [ -n "${FUZZ_RUNS:-}" ]; then
        extra+=(-runs="$FUZZ_RUNS")
    else
        extra+=(-max_total_time="$seconds")
    fi
    ASAN_OPTIONS=$asan_options "$binary" "${extra[@]}" -print_final_stats=1 -rss_limit_mb=1024 \
        -artifact_prefix="$work/artifacts/$target-" "$work/corpus/$target" >"$log" 2>&1
    rc=$?
    set -e
    execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
    corpus=$(ls "$work/corpus/$target" | wc -l)
    if [ $rc -ne 0 ]; then
        echo "fuzz $target: FAILED (exit $rc) after $execs executions; log $log"
        tail -n 40 "$log"
        status=1
    else
        took=$(grep -o 'Done [0-9]* runs in [0-9]* second' "$log" | grep -o 'in [0-9]*' | grep -o '[0-9]*' || echo "$seconds")
        rate="?"
        if [[ $execs =~ ^[0-9]+$ ]] && [[ $took =~ ^[0-9]+$ ]] && [ "$took" -gt 0 ]; then rate=$(( execs / took )); fi
        echo "fuzz $target: ok, $execs executions in ${took}s ($rate exec/s), 0 crashes, corpus $corpus inputs"
    fi
done
exit $status
