#!/usr/bin/env bash
# The full-length reproduction of the datapath patch series (issue 5) and the
# TCP_CORK + sendfile series, on both sim link models, saved to a directory:
#   stream-<link>.txt   smclab bench stream --preset datapath --isolate --counters
#                       (cover-letter tables, counter tables, Shapes)
#   stream-<link>.json  the same run's tables, shapes and settings as JSON
#   sendfile-<link>.txt smclab bench sendfile --counters (requests/s)
#   stderr of each run next to it (*.log: progress lines, warnings)
# The stream run takes about 17 sizes x 2 tests x 7 columns x SECONDS;
# at the default 10 s that is 40 minutes per link. Not part of CI.
#
# usage: scripts/bench-datapath.sh [BIN_DIR [OUT_DIR]]   (default build/bin; use a Release build)
# env:   SECONDS_PER_RUN (default 10), SENDFILE_SECONDS (default 10),
#        LINKS (default "ideal cx4-25g"), CONNECTIONS (default 4)
set -euo pipefail

BIN=${1:-build/bin}
OUT=${2:-bench-datapath-$(date -u +%Y%m%dT%H%M%SZ)}
SMCLAB="$BIN/smclab"
T=${SECONDS_PER_RUN:-10}
TS=${SENDFILE_SECONDS:-10}
LINKS=${LINKS:-"ideal cx4-25g"}
C=${CONNECTIONS:-4}
if [ ! -x "$SMCLAB" ]; then
    echo "bench-datapath: $SMCLAB not found (build smclab first, preferably Release)" >&2
    exit 2
fi
mkdir -p "$OUT"
{
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "host: $(uname -n) $(uname -r), $(nproc) CPUs"
    echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "smclab: $SMCLAB"
    echo "seconds per run: stream $T, sendfile $TS; connections $C"
} >"$OUT/README.txt"

status=0
for link in $LINKS; do
    echo "bench-datapath: stream, link $link" >&2
    # One run gives both files: the text tables for people, JSON for machines.
    "$SMCLAB" bench stream --preset datapath --isolate --counters --link "$link" -t "$T" \
        --json-out "$OUT/stream-$link.json" --db "$OUT/results.db" >"$OUT/stream-$link.txt" 2>"$OUT/stream-$link.log" || status=1
    echo "bench-datapath: sendfile, link $link" >&2
    "$SMCLAB" bench sendfile --counters --link "$link" -t "$TS" -c "$C" --db "$OUT/results.db" \
        >"$OUT/sendfile-$link.txt" 2>"$OUT/sendfile-$link.log" || status=1
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$OUT/README.txt"
for f in "$OUT"/*.txt; do
    echo "---- $f"
    cat "$f"
done
exit $status
