#!/usr/bin/env bash
# The campaign path beside the direct path, in one run: SMC tcp_bw and
# tcp_lat measured two ways on the same sim link, interleaved per
# repetition so that load and drift hit both alike:
#   tool      `smclab serve tcp` + `smclab load tcp_bw|tcp_lat`: the
#             workloads straight on the engine, no agent, orchestrator or
#             store (taskset to CPUs 1 and 0, as the local lab pins its
#             server and client agents)
#   campaign  `smclab bench stream`: two local smclab-agent processes (the
#             local lab, --cpu 1 and --cpu 0), the orchestrator and the
#             results store: what demo, GUI, benches and reports measure
# Prints the median of each (and min..max) and the ratio campaign/tool per
# size. Bandwidth is MB/s at the receiver (higher is better), latency
# one-way mean us (lower is better). Then the campaign path's per-message
# budget from the engines' counters in its store, each side: CDCs sent, CQ
# wake-ups (channel events), application sleeps and background-thread
# wake-ups per message (tcp_bw) or per round trip (tcp_lat), medians of
# the repetitions (the counters cover each run's warm-up too).
#
#   usage: scripts/bench-campaign-path.sh [-b BIN_DIR] [-l ideal|cx4-25g]
#          [-p BUSY_POLL_US] [-t SECONDS] [-r REPS] [-s SIZES]
#   SIZES: comma-separated list, e.g. 1,64,4K,16K,64K (default)
set -euo pipefail
source "$(dirname "$0")/bench-common.sh"
BENCH_DEFAULT_SIZES=1,64,4K,16K,64K bench_options "$@"
bin=$bench_bin link=$bench_link busy=$bench_busy secs=$bench_secs reps=$bench_reps sizes=$bench_sizes
size_list=("${bench_size_list[@]}")
smclab=$bin/smclab
agent=$bin/smclab-agent
for p in "$smclab" "$agent"; do
    [ -x "$p" ] || { echo "bench-campaign-path: $p not built" >&2; exit 1; }
done
work=$bench_work

# The same engine settings for every path.
topts=(--transport-opt "link=$link")
bench_busy=()
if [ -n "$busy" ]; then
    topts+=(--transport-opt "lab.busy_poll_us=$busy")
    bench_busy=(--busy-poll-us "$busy")
fi

# tool path server (one, kept for the whole run)
sport=$(free_port)
taskset -c 1 "$smclab" serve tcp --transport smcr "${topts[@]}" --listen "127.0.0.1:$sport" >"$work/serve.log" 2>&1 &
bench_pids+=($!)
sleep 1

record() { echo "$1 $2 $3 $4" >>"$work/values"; }  # path test size value

run_tool() {
    local test=$1 size=$2 out
    out=$(taskset -c 0 "$smclab" load "$test" --transport smcr "${topts[@]}" --connect "127.0.0.1:$sport" \
        -m "$(bytes_of "$size")" -t "$secs" -uu 2>/dev/null)
    if [ "$test" = tcp_bw ]; then
        record tool "$test" "$size" "$(awk '/bw *=/ {print $3; exit}' <<<"$out")"
    else
        record tool "$test" "$size" "$(awk '/latency *=/ {print $3; exit}' <<<"$out")"
    fi
}

run_campaign() {
    local test=$1 size=$2 out
    out=$("$smclab" bench stream --test "$test" -oo "msg_size:$size:$size:*2" -t "$secs" --link "$link" \
        "${bench_busy[@]}" --db "$work/results.db" 2>/dev/null || true)
    if [ "$test" = tcp_bw ]; then
        record campaign "$test" "$size" "$(awk '/bw *=/ {print $3; exit}' <<<"$out")"
    else
        record campaign "$test" "$size" "$(awk '/latency *=/ {print $3; exit}' <<<"$out")"
    fi
}

: >"$work/values"
total=$(( reps * ${#size_list[@]} * 2 * 2 ))
step=0
for ((r = 1; r <= reps; r++)); do
    for size in "${size_list[@]}"; do
        for test in tcp_bw tcp_lat; do
            # The order rotates per repetition: no path always runs first.
            paths=(tool campaign)
            rot=$(( (r - 1) % 2 ))
            paths=("${paths[@]:$rot}" "${paths[@]:0:$rot}")
            for p in "${paths[@]}"; do
                step=$((step + 1))
                printf '\r  %d/%d %s %s %s   ' "$step" "$total" "$p" "$test" "$size" >&2
                "run_$p" "$test" "$size"
            done
        done
    done
done
printf '\r%*s\r' 40 '' >&2

echo "link $link, busy_poll_us ${busy:-engine default}, $secs s per cell, $reps repetitions (median, min..max); load before: $(cut -d' ' -f1-3 /proc/loadavg)"
awk -v order="$sizes" '
function median(arr, n,    i, j, t) {
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (arr[j] < arr[i]) { t = arr[i]; arr[i] = arr[j]; arr[j] = t }
    return n % 2 ? arr[(n + 1) / 2] : (arr[n / 2] + arr[n / 2 + 1]) / 2
}
{ key = $1 SUBSEP $2 SUBSEP $3; gsub(",", "", $4); if ($4 == "") next; n[key]++; v[key, n[key]] = $4 + 0 }
END {
    ns = split(order, sz, ",")
    split("tcp_bw tcp_lat", tests, " ")
    for (t = 1; t <= 2; t++) {
        printf "==== %s (%s) ====\n", tests[t], tests[t] == "tcp_bw" ? "MB/s" : "us"
        printf "%8s %22s %22s %10s\n", "MsgSize", "tool", "campaign", "camp/tool"
        for (s = 1; s <= ns; s++) {
            line = sprintf("%8s", sz[s])
            split("tool campaign", paths, " ")
            for (p = 1; p <= 2; p++) {
                key = paths[p] SUBSEP tests[t] SUBSEP sz[s]
                m[p] = 0
                if (n[key] == 0) { line = line sprintf(" %22s", "-"); continue }
                delete a; lo = 1e18; hi = 0
                for (i = 1; i <= n[key]; i++) { a[i] = v[key, i]; if (a[i] < lo) lo = a[i]; if (a[i] > hi) hi = a[i] }
                m[p] = median(a, n[key])
                line = line sprintf(" %9.2f (%5.4g..%-5.4g)", m[p], lo, hi)
            }
            line = line sprintf(" %9.2fx", m[1] ? m[2] / m[1] : 0)
            print line
        }
    }
}' "$work/values"

python3 - "$work/results.db" "$sizes" <<'PY'
import sqlite3, statistics, sys
db, order = sys.argv[1], sys.argv[2].split(",")
def size_of(s):
    return int(s[:-1]) * 1024 if s.endswith("K") else int(s[:-1]) << 20 if s.endswith("M") else int(s)
names = {"smcr.cdc_sent": "CDCs", "smcr.cq_events": "CQ wake-ups", "smcr.blocking_waits": "app sleeps",
         "smcr.bg_wakeups": "bg wake-ups"}
con = sqlite3.connect(db)
per = {}  # (test, size, counter, side) -> [per-message values]
for run_id, test, size in con.execute("select id, workload, msg_size from runs where status = 'done'"):
    results = dict(con.execute("select metric, value from results where run_id = ?", (run_id,)))
    counters = {(side, name): v for side, name, v in con.execute(
        "select side, name, value from counters where run_id = ?", (run_id,))}
    # tcp_bw: messages received (warm-up included, as the counters); tcp_lat: the client's sends, one per round trip.
    msgs = results.get("recv_bytes", 0) / size if test == "tcp_bw" else counters.get(("client", "smcr.tx_calls"), 0)
    if msgs <= 0:
        continue
    for name in names:
        for side in ("client", "server"):
            per.setdefault((test, size, name, side), []).append(counters.get((side, name), 0) / msgs)
for test in ("tcp_bw", "tcp_lat"):
    unit = "message" if test == "tcp_bw" else "round trip"
    print(f"==== campaign path, per {unit}, client / server ({test}) ====")
    print("%8s" % "MsgSize" + "".join("%20s" % n for n in names.values()))
    for s in order:
        size = size_of(s)
        cells = []
        for name in names:
            vals = [per.get((test, size, name, side)) for side in ("client", "server")]
            cells.append("-" if not all(vals) else "%.3f / %.3f" % tuple(statistics.median(v) for v in vals))
        print("%8s" % s + "".join("%20s" % c for c in cells))
PY
