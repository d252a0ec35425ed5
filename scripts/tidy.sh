#!/usr/bin/env bash
# clang-tidy (.clang-tidy) on a bounded part of the tree, fast enough for
# every CI run (the tidy_check test). .clang-tidy's checks cost about 10 s of
# CPU per file, 8 of them in the clang-analyzer-* checks (engine/src/wire/
# cdc.cpp: 9.5 s with them, 1.9 s without), and a file that includes Qt
# (db/store) costs 8 s even without them. So CI runs every check but the
# analyzer on the pure wire codecs (engine/src/wire), the workloads' own
# protocol codecs without Qt (agents/workloads: http_parse, resp, kv_store,
# tcp_test_protocol, tool_format: 2-3 s each, 12.6 s in all) and the SQL
# plumbing of the results store (db/store: sql, dialect, schema,
# store_connection, database_path): 24 files, 109 s of CPU measured on a
# loaded 2-core host (the 19 without the workloads' codecs: about 70 s on an
# idle one). agents/transports, without Qt too, would add 42 s for its 9
# files (3.9-6.8 s each), so it is left out. -a adds the analyzer (outside
# CI).
#   usage: scripts/tidy.sh [-a] [-p BUILD_DIR] [FILE...]
#   -a:        all of .clang-tidy's checks, the clang-analyzer-* ones included
#   BUILD_DIR: a configured build with compile_commands.json (default: build)
#   FILE...:   check these instead of that subset
#   exit 1 on any finding, or when clang-tidy or the compile database is missing
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=build
checks=-clang-analyzer-*
while getopts ap: opt; do
    case $opt in
        a) checks= ;;
        p) build=$OPTARG ;;
        *) sed -n 's/^#   usage: //p' "$0" >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
tidy=$(command -v clang-tidy || command -v clang-tidy-14 || true)
if [ -z "$tidy" ]; then
    echo "tidy.sh: clang-tidy is not installed (bash packaging/install-deps.sh installs it)" >&2
    exit 1
fi
cd "$here"
case $build in /*) ;; *) build=$here/$build ;; esac
if [ ! -f "$build/compile_commands.json" ]; then
    echo "tidy.sh: no $build/compile_commands.json (configure the build first)" >&2
    exit 1
fi
if [ $# -gt 0 ]; then
    files=("$@")
else
    mapfile -t files < <(ls engine/src/wire/*.cpp \
        agents/workloads/{http_parse,resp,kv_store,tcp_test_protocol,tool_format}.cpp \
        db/store/src/{sql,dialect,schema,store_connection,database_path}.cpp)
fi
# The compile commands carry GCC's warning flags; clang would report each
# one it does not know as an error of its own.
# clang-tidy exits non-zero when a file does not compile (or is not in the
# compile database); findings are warnings, counted from its output.
status=0
out=$(printf '%s\n' "${files[@]}" |
    xargs -n 1 -P 2 "$tidy" -p "$build" --quiet --checks="$checks" --extra-arg=-Wno-unknown-warning-option 2>&1) ||
    status=$?
findings=$(grep -E '^[^ :]+:[0-9]+:[0-9]+: (warning|error):' <<<"$out" | sort -u || true)
if [ -n "$findings" ] || [ "$status" -ne 0 ]; then
    grep -vE '^[0-9]+ warnings? (and [0-9]+ errors? )?generated\.$' <<<"$out" || true
    echo "tidy.sh: ${#files[@]} files checked, $(grep -c . <<<"$findings") findings, clang-tidy status $status"
    exit 1
fi
echo "tidy.sh: ${#files[@]} files checked, no findings"
