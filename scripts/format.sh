#!/usr/bin/env bash
# The tree's C++ formatting against .clang-format.
#   usage: scripts/format.sh check|fix
#   check: lists every file that differs and exits 1 (CI's format_check test)
#   fix:   rewrites them in place
# Files: every .h and .cpp under engine, agents, db, gui and tests.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
mode=${1:-}
case $mode in check|fix) ;; *) sed -n 's/^#   usage: //p' "$0" >&2; exit 2 ;; esac
fmt=$(command -v clang-format || command -v clang-format-14 || true)
if [ -z "$fmt" ]; then
    echo "format.sh: clang-format is not installed (bash packaging/install-deps.sh installs it)" >&2
    exit 1
fi
cd "$here"
mapfile -d '' files < <(find engine agents db gui tests -name '*.h' -print0 -o -name '*.cpp' -print0 | sort -z)
if [ "$mode" = fix ]; then
    printf '%s\0' "${files[@]}" | xargs -0 -n 50 -P 2 "$fmt" -i
    exit 0
fi
# In batches, one process at a time (parallel output would interleave);
# clang-format names each file that differs in its
# "file:line:col: error: code should be clang-formatted" lines.
bad=$(printf '%s\0' "${files[@]}" | { xargs -0 -n 40 "$fmt" --dry-run --Werror 2>&1 || true; } |
    { grep -oE '(engine|agents|db|gui|tests)/[^: ]+\.(h|cpp):[0-9]+:[0-9]+: error: code should be clang-formatted' || true; } |
    cut -d: -f1 | sort -u)
if [ -n "$bad" ]; then
    sed 's/^/not formatted: /' <<<"$bad"
    echo "format.sh: ${#files[@]} files checked, $(wc -l <<<"$bad") not formatted (scripts/format.sh fix)"
    exit 1
fi
echo "format.sh: ${#files[@]} files checked, all formatted"
