#!/usr/bin/env bash
# Soak: connection churn against one local agent pair over smcr on the sim
# fabric, watching both agents' memory and file descriptors.
#
# Two smclab-agent processes run the http workload back to back: a static
# server, and a wrk-like client with CLIENTS connections that send
# "Connection: close", so every request opens a connection, fetches a page
# of SIZE bytes and closes it, all the time. Every INTERVAL
# seconds the script prints each agent's RSS (VmRSS) and open fds (from
# /proc). At the end it compares the samples after the warm-up: memory and
# fds are "flat" when the second half of the soak never exceeds the first
# half by more than the slack (RSS: 5% + 8 MiB; fds: CLIENTS/10 + 16, as a
# sample may catch connections mid-churn). Exit 0 = flat, 1 = growth, 2 = usage
# or setup error. Not a CI test; runs at nice 19 by default.
#
#   usage: scripts/soak.sh [-t MINUTES] [-c CLIENTS] [-s SIZE] [-i INTERVAL_S] [-w WARMUP_S] [-x smcr|tcp] [-b BUILD_DIR]
set -euo pipefail

minutes=30
clients=1000
size=1024
interval=30
transport=smcr
warmup=""
here=$(cd "$(dirname "$0")/.." && pwd)
build=$here/build
usage() { sed -n 's/^#   usage: //p' "$0" >&2; exit 2; }
while getopts "t:c:s:i:w:b:x:h" opt; do
    case $opt in
        t) minutes=$OPTARG ;;
        c) clients=$OPTARG ;;
        s) size=$OPTARG ;;
        i) interval=$OPTARG ;;
        w) warmup=$OPTARG ;;
        b) build=$OPTARG ;;
        x) transport=$OPTARG ;;
        *) usage ;;
    esac
done
[[ $minutes =~ ^[0-9]+([.][0-9]+)?$ && $clients =~ ^[0-9]+$ && $interval =~ ^[0-9]+$ && $interval -gt 0 ]] || usage
total_s=$(awk -v m="$minutes" 'BEGIN { printf "%d", m * 60 }')
[ "$total_s" -ge 60 ] || { echo "soak: at least 1 minute" >&2; exit 2; }
# Warm-up: the first fifth (at least one interval, at most 5 minutes).
if [ -z "$warmup" ]; then
    warmup=$(( total_s / 5 )); [ "$warmup" -lt "$interval" ] && warmup=$interval; [ "$warmup" -gt 300 ] && warmup=300
fi
agent=$build/bin/smclab-agent
cli=$build/bin/smclab
for p in "$agent" "$cli"; do [ -x "$p" ] || { echo "soak: $p not built (-b BUILD_DIR)" >&2; exit 2; }; done
renice -n 19 $$ >/dev/null 2>&1 || true

work=$(mktemp -d /tmp/smclab-soak.XXXXXX)
pids=()
cleanup() {
    # start_agent runs in a command substitution (a subshell): its pids come from the .pid files.
    for f in "$work"/*.pid; do [ -f "$f" ] && pids+=("$(cat "$f")"); done
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    if [ -n "${SOAK_KEEP:-}" ]; then echo "soak: kept $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT
head -c 24 /dev/urandom | base64 > "$work/token"
chmod 600 "$work/token"
export SMCR_SIM_DIR=$work/sim
mkdir -p "$SMCR_SIM_DIR"

start_agent() {  # name -> prints the port
    local name=$1
    "$agent" --listen 127.0.0.1:0 --token-file "$work/token" --max-duration 86400 \
        >"$work/$name.out" 2>"$work/$name.log" &
    pids+=($!)
    echo $! >"$work/$name.pid"
    for _ in $(seq 100); do
        local port
        port=$(sed -n 's/^listening on .*:\([0-9]*\)$/\1/p' "$work/$name.out")
        if [ -n "$port" ]; then echo "$port"; return 0; fi
        sleep 0.1
    done
    echo "soak: agent $name did not start:" >&2; cat "$work/$name.log" >&2; return 1
}
server_port=$(start_agent server)
client_port=$(start_agent client)
server_pid=$(cat "$work/server.pid")
client_pid=$(cat "$work/client.pid")

# One cell per chunk, so the orchestrator's run bookkeeping is exercised too
# and a failing chunk shows up at once.
chunk_s=60
[ "$total_s" -lt 120 ] && chunk_s=30
reps=$(( (total_s + chunk_s - 1) / chunk_s ))
cat >"$work/soak.json" <<EOF
{
  "name": "soak-${clients}-conns",
  "description": "scripts/soak.sh: ${clients} connections churning (one request each) for ${minutes} min",
  "workloads": [{"workload": "http", "label": "churn",
                 "params": {"connections": ${clients}, "threads": 2, "headers": ["Connection: close"],
                            "timeout_ms": 10000}}],
  "columns": [{"label": "${transport}", "transport": "${transport}"}],
  "sizes": [${size}],
  "repetitions": ${reps},
  "duration": "${chunk_s}s",
  "sampleIntervalMs": 5000,
  "transportOptions": {"fabric": "sim"}
}
EOF

echo "soak: ${clients} connections churning for ${minutes} min (${reps} runs of ${chunk_s} s), warm-up ${warmup} s"
echo "soak: agents server pid ${server_pid} (port ${server_port}), client pid ${client_pid} (port ${client_port})"
"$cli" run "$work/soak.json" --agents "127.0.0.1:${server_port},127.0.0.1:${client_port}" \
    --token-file "$work/token" --db "$work/soak.db" --connect-timeout 60s >"$work/run.out" 2>&1 &
run_pid=$!

rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status" 2>/dev/null || echo 0; }
fds() { ls "/proc/$1/fd" 2>/dev/null | wc -l; }
printf '%8s  %14s %10s  %14s %10s\n' "t_s" "server_rss_kb" "server_fds" "client_rss_kb" "client_fds"
samples=$work/samples.txt
: >"$samples"
start=$(date +%s)
next=0
stopping=0
while kill -0 "$run_pid" 2>/dev/null; do
    now=$(( $(date +%s) - start ))
    # Runs take a little longer than their duration (setup, results): stop
    # the campaign at the soak's end; the CLI ends the run in flight.
    if [ "$now" -ge "$total_s" ] && [ "$stopping" = 0 ]; then
        kill -INT "$run_pid" 2>/dev/null || true
        stopping=1
    fi
    if [ "$now" -ge "$next" ]; then
        for p in "$server_pid" "$client_pid"; do
            kill -0 "$p" 2>/dev/null || { echo "soak: agent pid $p died" >&2; tail -n 20 "$work"/*.log >&2; exit 1; }
        done
        line=$(printf '%8d  %14d %10d  %14d %10d' "$now" "$(rss_kb "$server_pid")" "$(fds "$server_pid")" \
            "$(rss_kb "$client_pid")" "$(fds "$client_pid")")
        echo "$line"
        echo "$line" >>"$samples"
        next=$(( next + interval ))
    fi
    sleep 1
done
set +e
wait "$run_pid"
run_rc=$?
set -e
tail -n 15 "$work/run.out"
for p in "$server_pid" "$client_pid"; do
    kill -0 "$p" 2>/dev/null || { echo "soak: agent pid $p died" >&2; exit 1; }
done
line=$(printf '%8d  %14d %10d  %14d %10d' "$(( $(date +%s) - start ))" "$(rss_kb "$server_pid")" \
    "$(fds "$server_pid")" "$(rss_kb "$client_pid")" "$(fds "$client_pid")")
echo "$line (after the last run)"
echo "$line" >>"$samples"

# Flatness after warm-up: max of the second half vs max of the first half.
verdict=$(awk -v warm="$warmup" -v clients="$clients" '
    $1 >= warm { n++; t[n] = $1; for (c = 2; c <= 5; c++) v[n, c] = $c }
    END {
        if (n < 4) { print "UNKNOWN too few samples after the warm-up (" n ")"; exit }
        h = int(n / 2); flat = 1; out = ""
        split("server_rss_kb server_fds client_rss_kb client_fds", name, " ")
        for (c = 2; c <= 5; c++) {
            a = 0; b = 0
            for (i = 1; i <= h; i++) if (v[i, c] > a) a = v[i, c]
            for (i = h + 1; i <= n; i++) if (v[i, c] > b) b = v[i, c]
            slack = (c % 2 == 0) ? a * 0.05 + 8192 : clients / 10 + 16
            ok = (b <= a + slack)
            if (!ok) flat = 0
            out = out sprintf("  %s: after warm-up %d, at the end %d; first half max %d, second half max %d (%+d) %s\n",
                              name[c - 1], v[1, c], v[n, c], a, b, b - a, ok ? "flat" : "GROWING")
        }
        printf "%s after warm-up (%d samples from t=%d s)\n%s", flat ? "FLAT" : "GROWING", n, t[1], out
    }' "$samples")
# The campaign's own verdict: every chunk must have run (the CLI exits 0
# even when cells failed, and prints "N cells ran, M failed").
ok_cells=$(grep -c '^cell .*: ok' "$work/run.out" || true)
failed_cells=$(grep -c '^cell .*: FAILED' "$work/run.out" || true)
stop_note=""
[ "$stopping" = 1 ] && stop_note=", stopped at the end of the soak"
echo "soak: ${ok_cells} runs ok, ${failed_cells} failed (campaign exit code ${run_rc}${stop_note})"
run_rc=0
[ "$failed_cells" = 0 ] && [ "$ok_cells" -gt 0 ] || run_rc=1
echo "soak: ${verdict%%$'\n'*}"
echo "${verdict#*$'\n'}"
case $verdict in
    FLAT*) [ "$run_rc" -eq 0 ] && exit 0; echo "soak: memory and fds flat, but the campaign failed (above)"; exit 1 ;;
    *) exit 1 ;;
esac
