#!/usr/bin/env bash
# Unmodified programs under smcr_run (libsmcr-preload.so) beside the same
# programs over kernel TCP and beside smclab's own smcr workload, in one run
# (issue 17's speed goals):
#   qperf    tcp_bw and tcp_lat per size: both ends under smcr_run | both
#            over kernel TCP | smclab load --transport smcr against smclab
#            serve tcp --transport smcr (goal: smcr_run within 15 % of smclab)
#   http     wrk -t2 -c50 against nginx (2 workers, sendfile, keep-alive),
#            a 4 KiB file: requests/s, smcr_run both ends vs kernel TCP
#   kv       redis-benchmark SET and GET (-c 50, -P 1) against redis-server
#            (--io-threads 2): requests/s, smcr_run both ends vs kernel TCP
#   kernel   programs with no SMC connection, under smcr_run vs without
#            (what the interposition costs; goal 3 %): qperf tcp_lat 64 B
#            from a preloaded client to a plain server (its socket stays TCP),
#            and dd's 512 B read/write loop (the fd lookup of every call)
# Servers run on CPU 1 and clients on CPU 0 (taskset). Each repetition runs
# every column of every row back to back, in an order that rotates, so load
# and drift hit all columns alike; printed: median (min..max) per cell and
# the ratios of the medians. Not part of CI; a few minutes with the defaults.
#
#   usage: scripts/bench-preload.sh [-b BIN_DIR] [-l ideal|cx4-25g]
#          [-p BUSY_POLL_US] [-t SECONDS] [-r REPS] [-s SIZES]
#   SIZES: qperf message sizes, default 64,4K,64K; SECONDS per cell, default 2
set -euo pipefail
source "$(dirname "$0")/bench-common.sh"
BENCH_DEFAULT_SECS=2 BENCH_DEFAULT_SIZES=64,4K,64K bench_options "$@"
smclab=$bench_bin/smclab
smcr_run=$bench_bin/smcr_run
for p in "$smclab" "$smcr_run"; do
    [ -x "$p" ] || { echo "bench-preload: $p not built" >&2; exit 1; }
done
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
for tool in qperf wrk "$NGINX" redis-server redis-benchmark dd taskset; do
    command -v "$tool" >/dev/null 2>&1 || {
        echo "bench-preload: '$tool' not found (packaging/install-deps.sh installs the tools)" >&2
        exit 2
    }
done
work=$bench_work
secs=$bench_secs
kv_requests=${KV_REQUESTS:-100000}

# The same engine settings for smcr_run and smclab.
run_opts=(--link "$bench_link")
topts=(--transport-opt "link=$bench_link")
if [ -n "$bench_busy" ]; then
    run_opts+=(--set "lab.busy_poll_us=$bench_busy")
    topts+=(--transport-opt "lab.busy_poll_us=$bench_busy")
fi
# exec: a server's pid is the program's (started in the background, so the
# function runs in a subshell), which the cleanup then ends.
server() { exec taskset -c 1 "$@"; }
client() { timeout $(( secs * 4 + 30 )) taskset -c 0 "$@"; }  # a hung client costs a cell, not the run
preloaded() { "$smcr_run" "${run_opts[@]}" "$@"; }
started() { bench_pids+=("$1"); }

record() { echo "$1 $2 $3" >>"$work/values"; }  # row column value
: >"$work/values"

# ---- servers (one per column, kept for the whole run) -------------------------
qperf_tcp=$(free_port)
server qperf -lp "$qperf_tcp" >/dev/null 2>&1 &
started $!
qperf_run=$(free_port)
# qperf's server forks a child per test; the control connection it hands
# over stays SMC-R like the data connection (engine/README.md, "fork").
server "$smcr_run" "${run_opts[@]}" qperf -lp "$qperf_run" >/dev/null 2>&1 &
started $!
smclab_port=$(free_port)
server "$smclab" serve tcp --transport smcr "${topts[@]}" --listen "127.0.0.1:$smclab_port" >"$work/serve.log" 2>&1 &
started $!

mkdir -p "$work/www"
head -c 4096 /dev/urandom >"$work/www/f4k"
nginx_conf() {  # DIR PORT
    mkdir -p "$1"
    cat >"$1/nginx.conf" <<EOF
worker_processes 2;
error_log $1/error.log warn;
pid $1/nginx.pid;
events { worker_connections 1024; }
http {
  access_log off;
  sendfile on; tcp_nopush on; keepalive_timeout 60; keepalive_requests 100000000;
  client_body_temp_path $1; proxy_temp_path $1; fastcgi_temp_path $1;
  uwsgi_temp_path $1; scgi_temp_path $1;
  server { listen 127.0.0.1:$2; root $work/www; }
}
EOF
}
nginx_tcp=$(free_port)
nginx_conf "$work/nginx-tcp" "$nginx_tcp"
server "$NGINX" -p "$work/nginx-tcp" -c "$work/nginx-tcp/nginx.conf" -g 'daemon off;' 2>/dev/null &
started $!
nginx_run=$(free_port)
nginx_conf "$work/nginx-run" "$nginx_run"
server "$smcr_run" "${run_opts[@]}" "$NGINX" -p "$work/nginx-run" -c "$work/nginx-run/nginx.conf" \
    -g 'daemon off;' 2>/dev/null &
started $!

redis_opts=(--bind 127.0.0.1 --save '' --appendonly no --dir "$work" --io-threads 2 --io-threads-do-reads yes)
redis_tcp=$(free_port)
server redis-server --port "$redis_tcp" "${redis_opts[@]}" >/dev/null 2>&1 &
started $!
redis_run=$(free_port)
server "$smcr_run" "${run_opts[@]}" redis-server --port "$redis_run" "${redis_opts[@]}" >/dev/null 2>&1 &
started $!

for port in "$qperf_tcp" "$qperf_run" "$smclab_port" "$nginx_tcp" "$nginx_run" "$redis_tcp" "$redis_run"; do
    wait_port "$port"
done

# ---- one cell each ------------------------------------------------------------
qperf_cell() {  # ROW COLUMN TEST SIZE: a qperf or smclab client for one value
    local row=$1 col=$2 test=$3 size=$4 out parse
    parse=$([ "$test" = tcp_bw ] && echo qperf_bw_mbps || echo qperf_lat_us)
    case $col in
        tcp) out=$(client qperf -lp "$qperf_tcp" 127.0.0.1 -t "$secs" -m "$size" "$test" 2>/dev/null || true) ;;
        smcr_run) out=$(client "$smcr_run" "${run_opts[@]}" qperf -lp "$qperf_run" 127.0.0.1 -t "$secs" -m "$size" \
            "$test" 2>/dev/null || true) ;;
        smclab) out=$(client "$smclab" load "$test" --transport smcr "${topts[@]}" \
            --connect "127.0.0.1:$smclab_port" -m "$size" -t "$secs" 2>/dev/null || true) ;;
    esac
    record "$row" "$col" "$($parse <<<"$out")"
}
wrk_cell() {  # COLUMN
    local port out pre=()
    [ "$1" = smcr_run ] && pre=("$smcr_run" "${run_opts[@]}")
    port=$([ "$1" = smcr_run ] && echo "$nginx_run" || echo "$nginx_tcp")
    out=$(client "${pre[@]}" wrk -t2 -c50 -d"${secs}s" "http://127.0.0.1:$port/f4k" 2>/dev/null || true)
    record http "$1" "$(awk '/Requests\/sec/ {print $2}' <<<"$out")"
}
redis_cell() {  # COLUMN
    local port out pre=()
    [ "$1" = smcr_run ] && pre=("$smcr_run" "${run_opts[@]}")
    port=$([ "$1" = smcr_run ] && echo "$redis_run" || echo "$redis_tcp")
    # Bounded by the request count, not the cell's seconds: a loaded host
    # runs redis-benchmark far below its usual rate.
    out=$(timeout 300 taskset -c 0 "${pre[@]}" redis-benchmark -p "$port" -t set,get -n "$kv_requests" -c 50 -P 1 \
        --threads 2 --csv 2>/dev/null || true)
    record kv_SET "$1" "$(awk -F'"' '$2 == "SET" {print $4}' <<<"$out")"
    record kv_GET "$1" "$(awk -F'"' '$2 == "GET" {print $4}' <<<"$out")"
}
kernel_cell() {  # COLUMN (smcr_run | plain): no SMC connection in either
    local pre=() out
    [ "$1" = smcr_run ] && pre=("$smcr_run" "${run_opts[@]}")
    out=$(client "${pre[@]}" qperf -lp "$qperf_tcp" 127.0.0.1 -t "$secs" -m 64 tcp_lat 2>/dev/null || true)
    record kernel_qperf_lat64 "$1" "$(qperf_lat_us <<<"$out")"
    out=$(client "${pre[@]}" dd if=/dev/zero of=/dev/null bs=512 count=2000000 2>&1 || true)
    # "... copied, 0.61 s, 1.7 GB/s"
    record kernel_dd512 "$1" "$(awk -F', ' '/copied/ { split($NF, a, " "); v = a[1]; u = a[2];
        if (u == "GB/s") v *= 1000; else if (u == "kB/s") v /= 1000; print v }' <<<"$out")"
}

rotate() {  # REP ITEMS...: the items, rotated by REP
    local rep=$1
    shift
    local items=("$@") n=$#
    local k=$(( rep % n ))
    echo "${items[@]:$k}" "${items[@]:0:$k}"
}

echo "bench-preload: $(date -u +%FT%TZ), $(uname -r), $(nproc) CPUs, link $bench_link," \
    "busy_poll_us ${bench_busy:-engine default}, $secs s per cell, $bench_reps repetitions; load before: $(load_avg)"
total=$(( bench_reps * (${#bench_size_list[@]} * 2 * 3 + 2 + 2 + 2) ))
step=0
progress() { step=$((step + 1)); printf '\r  %d/%d %s   ' "$step" "$total" "$*" >&2; }
for ((r = 0; r < bench_reps; r++)); do
    for size in "${bench_size_list[@]}"; do
        for test in tcp_bw tcp_lat; do
            for col in $(rotate "$r" smcr_run tcp smclab); do
                progress "$test $size $col"
                qperf_cell "${test}_$size" "$col" "$test" "$(bytes_of "$size")"
            done
        done
    done
    for col in $(rotate "$r" smcr_run tcp); do progress "wrk $col"; wrk_cell "$col"; done
    for col in $(rotate "$r" smcr_run tcp); do progress "redis $col"; redis_cell "$col"; done
    for col in $(rotate "$r" smcr_run plain); do progress "kernel fds $col"; kernel_cell "$col"; done
done
printf '\r%*s\r' 50 '' >&2
echo "load after: $(load_avg)"

# ---- tables -------------------------------------------------------------------
values_of() { awk -v row="$1" -v col="$2" '$1 == row && $2 == col && $3 != "" {print $3}' "$work/values"; }
cell() { median_spread $(values_of "$1" "$2"); }
med() { median_of $(values_of "$1" "$2"); }

echo
echo "qperf (tcp_bw MB/s at the receiver, higher is better; tcp_lat one-way us, lower is better)"
printf "%-16s %26s %26s %26s %9s %11s  %s\n" "test size" "smcr_run both ends" "kernel TCP" "smclab smcr" \
    "run/tcp" "run/smclab" "goal: within 15 % of smclab"
for test in tcp_bw tcp_lat; do
    for size in "${bench_size_list[@]}"; do
        row=${test}_$size
        run=$(med "$row" smcr_run)
        mine=$(med "$row" smclab)
        rs=$(ratio "$run" "$mine")
        if [ "$test" = tcp_bw ]; then
            verdict=$(awk -v r="$rs" 'BEGIN { print (r != "n/a" && r >= 0.85) ? "ok" : "MISSED" }')
        else
            verdict=$(awk -v r="$rs" 'BEGIN { print (r != "n/a" && r <= 1.15) ? "ok" : "MISSED" }')
        fi
        printf "%-16s %26s %26s %26s %9s %11s  %s\n" "$test $size" "$(cell "$row" smcr_run)" "$(cell "$row" tcp)" \
            "$(cell "$row" smclab)" "$(ratio "$run" "$(med "$row" tcp)")" "$rs" "$verdict"
    done
done

echo
echo "programs (requests/s, higher is better)"
printf "%-30s %26s %26s %9s\n" "" "smcr_run both ends" "kernel TCP" "run/tcp"
for row in http kv_SET kv_GET; do
    case $row in
        http) label="wrk -> nginx 4 KiB" ;;
        kv_SET) label="redis-benchmark SET" ;;
        kv_GET) label="redis-benchmark GET" ;;
    esac
    printf "%-30s %26s %26s %9s\n" "$label" "$(cell "$row" smcr_run)" "$(cell "$row" tcp)" \
        "$(ratio "$(med "$row" smcr_run)" "$(med "$row" tcp)")"
done

echo
echo "kernel fds only (no SMC connection): under smcr_run vs without; goal: within 3 %"
printf "%-30s %26s %26s %9s\n" "" "under smcr_run" "without" "ratio"
lat_ratio=$(ratio "$(med kernel_qperf_lat64 plain)" "$(med kernel_qperf_lat64 smcr_run)")
printf "%-30s %26s %26s %9s\n" "qperf tcp_lat 64 B (us)" "$(cell kernel_qperf_lat64 smcr_run)" \
    "$(cell kernel_qperf_lat64 plain)" "$lat_ratio"
printf "%-30s %26s %26s %9s\n" "dd bs=512 read/write (MB/s)" "$(cell kernel_dd512 smcr_run)" \
    "$(cell kernel_dd512 plain)" "$(ratio "$(med kernel_dd512 smcr_run)" "$(med kernel_dd512 plain)")"
echo "(ratios: speed under smcr_run / speed without, so below 0.97 misses the goal)"
