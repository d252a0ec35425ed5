#!/usr/bin/env bash
# Compares smclab's workloads with the tools users know, on this machine, in
# one run, and prints the ratios (ours / theirs):
#   tcp_bw   smclab load tcp_bw -> smclab serve tcp   vs  qperf tcp_bw -> qperf   (64 B, 4 KiB, 64 KiB; target within 10 %)
#   kv       smclab load kv -> redis-server           vs  redis-benchmark -> redis-server   (target within 25 %)
#   http     wrk -> smclab serve http, smclab load http -> nginx, and both against the same server (agree within 25 %)
# Each comparison is a pair run back to back (theirs, then ours, against the
# same server); the pair is repeated REPS times and the MEDIAN OF THE PER-PAIR
# RATIOS is reported (with every repeat's ratio), so a noisy neighbour that
# slows one repeat hurts both sides of that pair alike. Not part of CI.
#
# usage: scripts/bench-tools.sh [BIN_DIR]   (default build/bin; use a Release build)
# env:   SECONDS_PER_RUN (default 2), REPS (default 3), KV_REQUESTS (default 100000)
set -euo pipefail
source "$(dirname "$0")/bench-common.sh"  # ports, cleanup, median, ratio

BIN=${1:-build/bin}
SMCLAB="$BIN/smclab"
T=${SECONDS_PER_RUN:-2}
REPS=${REPS:-3}
KV_N=${KV_REQUESTS:-100000}
for tool in "$SMCLAB" qperf redis-server redis-benchmark wrk nginx jq; do
    if ! command -v "$tool" >/dev/null 2>&1 && [ ! -x "$tool" ] && [ ! -x "/usr/sbin/$tool" ]; then
        echo "bench-tools: '$tool' not found (packaging/install-deps.sh installs the tools; build smclab first)" >&2
        exit 2
    fi
done
NGINX=$(command -v nginx || echo /usr/sbin/nginx)

WORK=$bench_work

# start_serve VAR ARGS...: starts `smclab serve ARGS` in this shell (so cleanup
# sees its pid), sets VAR to its port from the "listening on" line, VAR_PID to its pid.
start_serve() {
    local var=$1
    shift
    local log="$WORK/serve.$var.log"
    "$SMCLAB" serve "$@" --listen 127.0.0.1:0 >"$log" 2>&1 &
    local pid=$!
    bench_pids+=("$pid")
    printf -v "${var}_PID" '%s' "$pid"
    for _ in $(seq 100); do
        if grep -q 'listening on' "$log"; then
            printf -v "$var" '%s' "$(grep -o 'listening on [^ ]*' "$log" | sed 's/.*://')"
            return 0
        fi
        sleep 0.1
    done
    echo "bench-tools: smclab serve $* did not start: $(cat "$log")" >&2
    return 1
}
# CPU time (s) a process and its reaped children used so far (/proc/PID/stat
# utime+stime+cutime+cstime); qperf's server forks a child per test.
HZ=$(getconf CLK_TCK)
cpu_sec() { awk -v hz="$HZ" '{ print ($14 + $15 + $16 + $17) / hz }' "/proc/$1/stat"; }
now_sec() { date +%s.%N; }
# qperf's server reaps its per-test child a moment after the test: wait until
# the counter moved past BEFORE and held still for 0.2 s (at most 3 s).
settled_cpu_sec() {
    local pid=$1 before=$2 last now
    last=$(cpu_sec "$pid")
    for _ in $(seq 30); do
        sleep 0.1
        now=$(cpu_sec "$pid")
        if [ "$now" = "$last" ] && [ "$now" != "$before" ]; then
            sleep 0.1
            [ "$(cpu_sec "$pid")" = "$now" ] && break
        fi
        last=$now
    done
    cpu_sec "$pid"
}
# MB/s per receiving core: bw / (receiver CPU seconds / wall seconds of the run).
per_core() { awk -v bw="$1" -v c="$2" -v w="$3" 'BEGIN { f = w > 0 ? c / w : 0; if (f > 0) printf "%.1f", bw / f; else print 0 }'; }
verdict() {  # ratio, tolerance (0.10 = 10 %): both sides must agree
    awk -v r="$1" -v t="$2" 'BEGIN { d = r - 1; if (d < 0) d = -d; print (r != "n/a" && d <= t) ? "ok" : "MISSED" }'
}
# ours / theirs for "as fast as": below the band is a miss; above it, ours is
# faster (printed as such, never hidden: e.g. fewer system calls per request).
speed_verdict() {
    awk -v r="$1" -v t="$2" 'BEGIN { if (r == "n/a" || r < 1 - t) print "MISSED";
        else if (r > 1 + t) print "ok, ours faster (above the band)"; else print "ok" }'
}


echo "bench-tools: $(date -u +%FT%TZ), $(uname -r), $(nproc) CPUs, load $(cut -d" " -f1-3 /proc/loadavg), $T s per run, $REPS back-to-back pairs, median ratio"
echo

# ---- tcp_bw ------------------------------------------------------------------
QPERF_PORT=$(free_port)
qperf -lp "$QPERF_PORT" >/dev/null 2>&1 &
QPERF_PID=$!
bench_pids+=("$QPERF_PID")
wait_port "$QPERF_PORT"
start_serve TCP_PORT tcp
echo "tcp_bw: qperf -lp PORT 127.0.0.1 -t $T -m SIZE tcp_bw   vs   smclab load tcp_bw --connect 127.0.0.1:PORT -t $T -m SIZE --json"
echo "        bw = the receiver's MB/s (both tools); /core = bw per receiving core (receiver process CPU / wall time),"
echo "        which cancels how much CPU the neighbours left each run"
printf "%-8s %10s %10s %7s  %-20s %-34s %9s %9s %7s  %s\n" "msg_size" "qperf MB/s" "ours MB/s" "ratio" "repeats" \
    "(target 0.90-1.10)" "qperf/core" "ours/core" "ratio" "repeats"
for size in 64 4096 65536; do
    theirs=(); ours=(); ratios=(); theirs_core=(); ours_core=(); core_ratios=()
    for _ in $(seq "$REPS"); do
        c0=$(cpu_sec "$QPERF_PID"); t0=$(now_sec)
        q=$(qperf -lp "$QPERF_PORT" 127.0.0.1 -t "$T" -m "$size" tcp_bw | qperf_bw_mbps)
        t1=$(now_sec); c1=$(settled_cpu_sec "$QPERF_PID" "$c0")
        d0=$(cpu_sec "$TCP_PORT_PID"); u0=$(now_sec)
        o=$("$SMCLAB" load tcp_bw --connect "127.0.0.1:$TCP_PORT" -t "$T" -m "$size" --json | jq '.summary.bw_MBps')
        d1=$(cpu_sec "$TCP_PORT_PID"); u1=$(now_sec)
        qc=$(per_core "$q" "$(awk -v a="$c1" -v b="$c0" 'BEGIN { print a - b }')" "$(awk -v a="$t1" -v b="$t0" 'BEGIN { print a - b }')")
        oc=$(per_core "$o" "$(awk -v a="$d1" -v b="$d0" 'BEGIN { print a - b }')" "$(awk -v a="$u1" -v b="$u0" 'BEGIN { print a - b }')")
        theirs+=("$q"); ours+=("$o"); ratios+=("$(ratio "$o" "$q")")
        theirs_core+=("$qc"); ours_core+=("$oc"); core_ratios+=("$(ratio "$oc" "$qc")")
    done
    r=$(median_of "${ratios[@]}")
    rc=$(median_of "${core_ratios[@]}")
    printf "%-8s %10.2f %10.2f %7s  %-20s %-34s %9.1f %9.1f %7s  %s\n" "$size" "$(median_of "${theirs[@]}")" \
        "$(median_of "${ours[@]}")" "$r" "${ratios[*]}" "$(speed_verdict "$r" 0.10)" \
        "$(median_of "${theirs_core[@]}")" "$(median_of "${ours_core[@]}")" "$rc" "${core_ratios[*]}"
done
echo

# ---- kv ----------------------------------------------------------------------
REDIS_PORT=$(free_port)
redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save '' --appendonly no --dir "$WORK" >/dev/null 2>&1 &
bench_pids+=($!)
wait_port "$REDIS_PORT"
echo "kv: redis-benchmark -p PORT -t set,get -n $KV_N -c 50 --csv   vs   smclab load kv --connect 127.0.0.1:PORT -t set,get -n $KV_N -c 50 --csv"
printf "%-24s %14s %14s %8s  %-22s %s\n" "redis-server $(redis-server --version | grep -o 'v=[0-9.]*')" \
    "r-benchmark/s" "smclab/s" "ratio" "repeats (ours/theirs)" "(target 0.75-1.25)"
declare -A KV_THEIRS KV_OURS KV_RATIOS
for _ in $(seq "$REPS"); do
    declare -A pair_theirs=() pair_ours=()
    while IFS=, read -r test rps _; do
        pair_theirs[$test]=$rps
    done < <(redis-benchmark -p "$REDIS_PORT" -t set,get -n "$KV_N" -c 50 --csv | tail -n +2 | tr -d '"')
    while IFS=, read -r test rps _; do
        pair_ours[$test]=$rps
    done < <("$SMCLAB" load kv --connect "127.0.0.1:$REDIS_PORT" -t set,get -n "$KV_N" -c 50 --csv | tail -n +2 | tr -d '"')
    for test in SET GET; do
        KV_THEIRS[$test]+="${pair_theirs[$test]:-0} "
        KV_OURS[$test]+="${pair_ours[$test]:-0} "
        KV_RATIOS[$test]+="$(ratio "${pair_ours[$test]:-0}" "${pair_theirs[$test]:-0}") "
    done
done
for test in SET GET; do
    r=$(median_of ${KV_RATIOS[$test]})
    printf "%-24s %14.0f %14.0f %8s  %-22s %s\n" "$test" "$(median_of ${KV_THEIRS[$test]})" \
        "$(median_of ${KV_OURS[$test]})" "$r" "${KV_RATIOS[$test]% }" "$(speed_verdict "$r" 0.25)"
done
echo

# Why the kv clients differ: system calls per request of each client (strace -c).
if command -v strace >/dev/null 2>&1; then
    SC_N=20000
    per_request() {  # strace -c output file -> "name=calls/request ..."
        # columns: % time, seconds, usecs/call, calls, [errors,] syscall
        awk -v n="$SC_N" '$NF ~ /^(epoll_ctl|epoll_wait|sendto|recvfrom|write|read)$/ { printf "%s=%.2f ", $NF, $4 / n }' "$1"
    }
    strace -c -f -o "$WORK/rb.strace" redis-benchmark -p "$REDIS_PORT" -t set -n "$SC_N" -c 50 -q >/dev/null 2>&1
    strace -c -f -o "$WORK/ours.strace" "$SMCLAB" load kv --connect "127.0.0.1:$REDIS_PORT" -t set -n "$SC_N" -c 50 -q >/dev/null 2>&1
    echo "system calls per SET request (strace -c -f, -n $SC_N -c 50):"
    echo "  redis-benchmark:  $(per_request "$WORK/rb.strace")"
    echo "  smclab load kv:   $(per_request "$WORK/ours.strace")"
fi
echo

# ---- http --------------------------------------------------------------------
mkdir -p "$WORK/www"
head -c 4096 /dev/zero | tr '\0' 'n' >"$WORK/www/4k.html"
NGINX_PORT=$(free_port)
USER_LINE=""
if [ "$(id -u)" -eq 0 ]; then USER_LINE="user root;"; fi
cat >"$WORK/nginx.conf" <<EOF
$USER_LINE
daemon off;
worker_processes 1;
pid $WORK/nginx.pid;
error_log $WORK/nginx-error.log;
events { worker_connections 1024; }
http {
    access_log off;
    sendfile on;
    tcp_nopush on;
    keepalive_requests 1000000;
    client_body_temp_path $WORK/body; proxy_temp_path $WORK/proxy; fastcgi_temp_path $WORK/fastcgi;
    uwsgi_temp_path $WORK/uwsgi; scgi_temp_path $WORK/scgi;
    server { listen 127.0.0.1:$NGINX_PORT; root $WORK/www; }
}
EOF
"$NGINX" -p "$WORK" -e "$WORK/nginx-error.log" -c "$WORK/nginx.conf" &
bench_pids+=($!)
wait_port "$NGINX_PORT"
start_serve HTTP_PORT http
wrk_rps() { wrk -t2 -c10 -d"${T}s" "http://127.0.0.1:$1/4k.html" | awk '/^Requests\/sec:/ { print $2 }'; }
ours_rps() { "$SMCLAB" load http --connect "127.0.0.1:$1" -t 2 -c 10 -d "${T}s" | awk '/^Requests\/sec:/ { print $2 }'; }
echo "http: wrk -t2 -c10 -d${T}s http://127.0.0.1:PORT/4k.html   vs   smclab load http --connect 127.0.0.1:PORT -t 2 -c 10 -d ${T}s"
echo "      servers: nginx (1 worker, sendfile on, tcp_nopush on) and smclab serve http (1 thread, 4 KiB page)"
declare -A H R
for _ in $(seq "$REPS"); do
    wn=$(wrk_rps "$NGINX_PORT")
    on=$(ours_rps "$NGINX_PORT")
    wo=$(wrk_rps "$HTTP_PORT")
    oo=$(ours_rps "$HTTP_PORT")
    H[wrk_nginx]+="$wn "; H[ours_nginx]+="$on "; H[wrk_ours]+="$wo "; H[ours_ours]+="$oo "
    R[agree]+="$(ratio "$on" "$wo") "    # adjacent runs
    R[client]+="$(ratio "$on" "$wn") "   # adjacent runs
    R[server]+="$(ratio "$wo" "$wn") "
done
printf "%-34s %12s  %s\n" "http (-t 2 -c 10, 4 KiB page)" "requests/s" "repeats"
for k in wrk_nginx ours_nginx wrk_ours ours_ours; do
    case $k in
        wrk_nginx) label="wrk -> nginx" ;;
        ours_nginx) label="smclab load http -> nginx" ;;
        wrk_ours) label="wrk -> smclab serve http" ;;
        ours_ours) label="smclab load http -> smclab serve" ;;
    esac
    printf "%-34s %12.0f  %s\n" "$label" "$(median_of ${H[$k]})" "${H[$k]% }"
done
printf "%-34s %8s  %-34s %s\n" "ratio (median of per-repeat)" "" "(target 0.75-1.25)" "repeats"
for k in agree client server; do
    case $k in
        agree) label="smclab->nginx / wrk->smclab" ;;
        client) label="client: smclab / wrk (vs nginx)" ;;
        server) label="server: smclab / nginx (wrk)" ;;
    esac
    r=$(median_of ${R[$k]})
    if [ "$k" = agree ]; then v=$(verdict "$r" 0.25); else v=$(speed_verdict "$r" 0.25); fi
    printf "%-34s %8s  %-34s %s\n" "$label" "$r" "$v" "${R[$k]% }"
done
