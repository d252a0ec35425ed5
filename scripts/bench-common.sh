# Shared by the bench-*.sh scripts (sourced, not run): their common options,
# process cleanup, ports and the statistics they print.
#
# bench_options "$@" parses the options every bench script takes and sets:
#   -b BIN_DIR      bench_bin    (default <repo>/build/bin; use a Release build)
#   -l LINK         bench_link   (sim link model, default ideal)
#   -p BUSY_US      bench_busy   (lab.busy_poll_us; empty = engine default)
#   -t SECONDS      bench_secs   (per cell; default $BENCH_DEFAULT_SECS or 1)
#   -r REPS         bench_reps   (default 3)
#   -s SIZES        bench_sizes  (comma-separated, 4K/64K spellings; default $BENCH_DEFAULT_SIZES)
# -h or an unknown option prints the caller's "#   usage:" header lines and exits 2.

bench_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

bench_usage() {  # the caller's "#   usage: ..." line and its continuation lines
    awk '/^#   usage: / { on = 1; sub(/^#   usage: /, ""); print; next }
         on && /^#          / { sub(/^#          /, ""); print; next } { on = 0 }' "$0" >&2
}

bench_options() {
    bench_bin=$bench_root/build/bin
    bench_link=ideal
    bench_busy=""
    bench_secs=${BENCH_DEFAULT_SECS:-1}
    bench_reps=3
    bench_sizes=${BENCH_DEFAULT_SIZES:-1,64,4K,16K,64K}
    local opt OPTIND=1
    while getopts "b:l:p:t:r:s:h" opt; do
        case $opt in
            b) bench_bin=$OPTARG ;;
            l) bench_link=$OPTARG ;;
            p) bench_busy=$OPTARG ;;
            t) bench_secs=$OPTARG ;;
            r) bench_reps=$OPTARG ;;
            s) bench_sizes=$OPTARG ;;
            *) bench_usage; exit 2 ;;
        esac
    done
    IFS=, read -r -a bench_size_list <<<"$bench_sizes"
}

# A scratch directory and the background processes to end at exit.
bench_work=$(mktemp -d /tmp/smclab-bench.XXXXXX)
bench_pids=()
bench_cleanup() {
    for p in "${bench_pids[@]}"; do kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$bench_work"
}
trap bench_cleanup EXIT

bytes_of() {  # 4K -> 4096
    local s=$1
    case $s in
        *K) echo $(( ${s%K} * 1024 )) ;;
        *M) echo $(( ${s%M} * 1048576 )) ;;
        *) echo "$s" ;;
    esac
}
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() {  # until something accepts on 127.0.0.1:PORT (10 s)
    for _ in $(seq 100); do
        (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
        sleep 0.1
    done
    echo "$(basename "$0"): nothing listens on port $1" >&2
    return 1
}
median() { sort -g | awk '{a[NR]=$1} END {if (NR == 0) print 0; else print a[int((NR + 1) / 2)]}'; }
median_of() { printf '%s\n' "$@" | median; }
# "median (min..max)" of the arguments; "-" when there are none.
median_spread() {
    [ $# -gt 0 ] || { echo "-"; return; }
    printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {printf "%.5g (%.4g..%.4g)", a[int((NR + 1) / 2)], a[1], a[NR]}'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "n/a" }'; }
load_avg() { cut -d' ' -f1-3 /proc/loadavg; }

# qperf's results in one unit whatever it chose ("bw = 2.39 GB/sec", "latency = 12199 ns").
qperf_bw_mbps() {
    awk '/bw *=/ { v = $3; u = $4; gsub(",", "", v);
        if (u == "GB/sec") v *= 1000; else if (u == "KB/sec") v /= 1000; else if (u == "bytes/sec") v /= 1e6;
        print v; exit }'
}
qperf_lat_us() {
    awk '/latency *=/ { v = $3; u = $4; gsub(",", "", v);
        if (u == "ns") v /= 1000; else if (u == "ms") v *= 1000; else if (u == "sec") v *= 1e6;
        print v; exit }'
}
