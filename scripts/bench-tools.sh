#!/usr/bin/env bash
# Compares smclab's workloads with the tools users know, on this machine, in
# one run, and prints the ratios (ours / theirs):
#   tcp_bw   smclab load tcp_bw -> smclab serve tcp   vs  qperf tcp_bw -> qperf   (64 B, 4 KiB, 64 KiB; target within 10 %)
#   kv       smclab load kv -> redis-server           vs  redis-benchmark -> redis-server   (target within 25 %)
#   http     wrk -> smclab serve http, smclab load http -> nginx, and both against the same server (agree within 25 %)
# Every measurement is repeated REPS times, interleaved, and the median kept,
# so a noisy neighbour hurts both sides alike. Not part of CI.
#
# usage: scripts/bench-tools.sh [BIN_DIR]   (default build/bin; use a Release build)
# env:   SECONDS_PER_RUN (default 2), REPS (default 3), KV_REQUESTS (default 100000)
set -euo pipefail

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

WORK=$(mktemp -d /tmp/smclab-bench-tools.XXXXXX)
PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() {
    for _ in $(seq 100); do
        (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
        sleep 0.1
    done
    echo "bench-tools: nothing listens on port $1" >&2
    return 1
}
# smclab serve ... : starts it and prints the port from its "listening on" line.
start_serve() {
    local log="$WORK/serve.$RANDOM.log"
    "$SMCLAB" serve "$@" --listen 127.0.0.1:0 >"$log" 2>&1 &
    PIDS+=($!)
    for _ in $(seq 100); do
        if grep -q 'listening on' "$log"; then
            grep -o 'listening on [^ ]*' "$log" | sed 's/.*://'
            return 0
        fi
        sleep 0.1
    done
    echo "bench-tools: smclab serve $* did not start: $(cat "$log")" >&2
    return 1
}
median() { sort -g | awk '{a[NR]=$1} END {if (NR == 0) print 0; else print a[int((NR + 1) / 2)]}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "n/a" }'; }
verdict() {  # ratio, tolerance (0.10 = 10 %)
    awk -v r="$1" -v t="$2" 'BEGIN { d = r - 1; if (d < 0) d = -d; print (r != "n/a" && d <= t) ? "ok" : "MISSED" }'
}

# qperf prints e.g. "bw  =  2.39 GB/sec"; convert to MB/sec.
qperf_bw_mbps() {
    awk '/bw *=/ { v = $3; u = $4;
        if (u == "GB/sec") v *= 1000; else if (u == "KB/sec") v /= 1000; else if (u == "bytes/sec") v /= 1e6;
        gsub(",", "", v); print v }'
}

echo "bench-tools: $(uname -r), $(nproc) CPUs, $T s per run, median of $REPS"
echo

# ---- tcp_bw ------------------------------------------------------------------
QPERF_PORT=$(free_port)
qperf -lp "$QPERF_PORT" >/dev/null 2>&1 &
PIDS+=($!)
wait_port "$QPERF_PORT"
TCP_PORT=$(start_serve tcp)
printf "%-22s %14s %14s %8s %s\n" "tcp_bw msg_size" "qperf MB/s" "smclab MB/s" "ratio" "(target 0.90-1.10)"
for size in 64 4096 65536; do
    theirs=(); ours=()
    for _ in $(seq "$REPS"); do
        theirs+=("$(qperf -lp "$QPERF_PORT" 127.0.0.1 -t "$T" -m "$size" tcp_bw | qperf_bw_mbps)")
        ours+=("$("$SMCLAB" load tcp_bw --connect "127.0.0.1:$TCP_PORT" -t "$T" -m "$size" --json | jq '.summary.bw_MBps')")
    done
    q=$(printf '%s\n' "${theirs[@]}" | median)
    s=$(printf '%s\n' "${ours[@]}" | median)
    r=$(ratio "$s" "$q")
    printf "%-22s %14.2f %14.2f %8s %s\n" "$size" "$q" "$s" "$r" "$(verdict "$r" 0.10)"
done
echo

# ---- kv ----------------------------------------------------------------------
REDIS_PORT=$(free_port)
redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save '' --appendonly no --dir "$WORK" >/dev/null 2>&1 &
PIDS+=($!)
wait_port "$REDIS_PORT"
printf "%-22s %14s %14s %8s %s\n" "kv vs redis-server" "r-benchmark/s" "smclab/s" "ratio" "(target 0.75-1.25)"
declare -A KV_THEIRS KV_OURS
for _ in $(seq "$REPS"); do
    while IFS=, read -r test rps _; do
        KV_THEIRS[$test]+="$rps "
    done < <(redis-benchmark -p "$REDIS_PORT" -t set,get -n "$KV_N" -c 50 --csv | tail -n +2 | tr -d '"')
    while IFS=, read -r test rps _; do
        KV_OURS[$test]+="$rps "
    done < <("$SMCLAB" load kv --connect "127.0.0.1:$REDIS_PORT" -t set,get -n "$KV_N" -c 50 --csv | tail -n +2 | tr -d '"')
done
for test in SET GET; do
    q=$(echo ${KV_THEIRS[$test]} | tr ' ' '\n' | median)
    s=$(echo ${KV_OURS[$test]} | tr ' ' '\n' | median)
    r=$(ratio "$s" "$q")
    printf "%-22s %14.0f %14.0f %8s %s\n" "$test (-c 50 -n $KV_N)" "$q" "$s" "$r" "$(verdict "$r" 0.25)"
done
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
PIDS+=($!)
wait_port "$NGINX_PORT"
HTTP_PORT=$(start_serve http)
wrk_rps() { wrk -t2 -c10 -d"${T}s" "http://127.0.0.1:$1/4k.html" | awk '/^Requests\/sec:/ { print $2 }'; }
ours_rps() { "$SMCLAB" load http --connect "127.0.0.1:$1" -t 2 -c 10 -d "${T}s" | awk '/^Requests\/sec:/ { print $2 }'; }
declare -A H
for _ in $(seq "$REPS"); do
    H[wrk_nginx]+="$(wrk_rps "$NGINX_PORT") "
    H[ours_nginx]+="$(ours_rps "$NGINX_PORT") "
    H[wrk_ours]+="$(wrk_rps "$HTTP_PORT") "
    H[ours_ours]+="$(ours_rps "$HTTP_PORT") "
done
for k in wrk_nginx ours_nginx wrk_ours ours_ours; do
    H[$k]=$(echo ${H[$k]} | tr ' ' '\n' | median)
done
printf "%-34s %12s\n" "http (-t 2 -c 10, 4 KiB page)" "requests/s"
printf "%-34s %12.0f\n" "wrk -> nginx" "${H[wrk_nginx]}" "smclab load http -> nginx" "${H[ours_nginx]}" \
    "wrk -> smclab serve http" "${H[wrk_ours]}" "smclab load http -> smclab serve" "${H[ours_ours]}"
r=$(ratio "${H[ours_nginx]}" "${H[wrk_ours]}")
printf "%-34s %12s %s\n" "smclab->nginx / wrk->smclab" "$r" "$(verdict "$r" 0.25) (target 0.75-1.25)"
r=$(ratio "${H[ours_nginx]}" "${H[wrk_nginx]}")
printf "%-34s %12s %s\n" "client: smclab / wrk (vs nginx)" "$r" "$(verdict "$r" 0.25)"
r=$(ratio "${H[wrk_ours]}" "${H[wrk_nginx]}")
printf "%-34s %12s %s\n" "server: smclab / nginx (wrk)" "$r" "$(verdict "$r" 0.25)"
