#!/usr/bin/env bash
# kv over SMC beside kv over kernel TCP, in one run: `smclab serve kv` +
# `smclab load kv` (redis-benchmark's options and -q output), the server
# pinned to CPU 1 and the load to CPU 0, SET and GET with -c clients and
# each pipeline depth, the two transports interleaved per repetition (the
# order rotating) so that load and drift hit both alike. Prints the median
# requests/s (min..max) and SMC/TCP per test and depth.
#   SMC: libsmcr on both ends over the sim link model (-l); its CLC
#        handshake over loopback.
#   TCP: kernel TCP over loopback, unshaped: a faster wire than the model,
#        so the ratio flatters TCP, never SMC.
#
#   usage: scripts/bench-kv.sh [-b BIN_DIR] [-l ideal|cx4-25g|cx4lx-vf]
#          [-p BUSY_POLL_US] [-r REPS] [-P DEPTHS] [-c CLIENTS] [-n REQUESTS]
#   DEPTHS: comma-separated -P values (default 1,16); defaults -l cx4-25g,
#   -r 3, -c 200, -n 1000000 (per test: SET then GET).
set -euo pipefail
source "$(dirname "$0")/bench-common.sh"
bin=$bench_root/build/bin link=cx4-25g busy="" reps=3 depths=1,16 clients=200 requests=1000000
while getopts "b:l:p:r:P:c:n:h" opt; do
    case $opt in
        b) bin=$OPTARG ;;
        l) link=$OPTARG ;;
        p) busy=$OPTARG ;;
        r) reps=$OPTARG ;;
        P) depths=$OPTARG ;;
        c) clients=$OPTARG ;;
        n) requests=$OPTARG ;;
        *) bench_usage; exit 2 ;;
    esac
done
smclab=$bin/smclab
[ -x "$smclab" ] || { echo "bench-kv: $smclab not built" >&2; exit 1; }
IFS=, read -r -a depth_list <<<"$depths"
work=$bench_work
export SMCR_SIM_DIR=$work/sim
mkdir -p "$SMCR_SIM_DIR"

opts_for() {  # the transport options of one column
    if [ "$1" = smcr ]; then
        echo --transport smcr --transport-opt "link=$link"
        [ -z "$busy" ] || echo --transport-opt "lab.busy_poll_us=$busy"
    else
        echo --transport tcp
    fi
}

run_pair() {  # transport depth: one server, one load of SET and GET
    local t=$1 depth=$2 port out pid
    local -a opts
    mapfile -t opts < <(opts_for "$t" | tr ' ' '\n')
    port=$(free_port)
    taskset -c 1 "$smclab" serve kv "${opts[@]}" --listen "127.0.0.1:$port" >"$work/serve.log" 2>&1 &
    pid=$!
    bench_pids+=("$pid")
    wait_port "$port"
    out=$(taskset -c 0 "$smclab" load kv "${opts[@]}" --connect "127.0.0.1:$port" -c "$clients" \
        -n "$requests" -P "$depth" -t set,get -q 2>&1 || true)
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    for test in SET GET; do
        echo "$t $test $depth $(awk -v k="$test:" '$1 == k {print $2; exit}' <<<"$out")" >>"$work/values"
    done
}

: >"$work/values"
total=$(( reps * ${#depth_list[@]} * 2 ))
step=0
echo "load before: $(load_avg)" >&2
for ((r = 1; r <= reps; r++)); do
    for depth in "${depth_list[@]}"; do
        columns=(smcr tcp)
        rot=$(( (r - 1) % 2 ))
        columns=("${columns[@]:$rot}" "${columns[@]:0:$rot}")
        for t in "${columns[@]}"; do
            step=$((step + 1))
            printf '\r  %d/%d %s -P %s   ' "$step" "$total" "$t" "$depth" >&2
            run_pair "$t" "$depth"
        done
    done
done
printf '\r%*s\r' 40 '' >&2

echo "kv: $clients clients, $requests requests per test, $reps repetitions (median, min..max); SMC: libsmcr over the sim link $link (busy_poll_us ${busy:-engine default}); TCP: kernel TCP over loopback, unshaped; load after: $(load_avg)"
# "1.48M (1.45M..1.52M)": the median and spread of requests/s in k or M.
rate_spread() {
    [ $# -gt 0 ] || { echo "-"; return; }
    printf '%s\n' "$@" | sort -g | awk '
        function r(v) { return v >= 1e6 ? sprintf("%.2fM", v / 1e6) : sprintf("%.0fk", v / 1e3) }
        {a[NR] = $1} END {printf "%s (%s..%s)", r(a[int((NR + 1) / 2)]), r(a[1]), r(a[NR])}'
}
printf '%6s %4s %24s %24s %8s\n' test -P "SMC req/s" "TCP req/s" SMC/TCP
for test in SET GET; do
    for depth in "${depth_list[@]}"; do
        mapfile -t smc < <(awk -v t="$test" -v d="$depth" '$1 == "smcr" && $2 == t && $3 == d && $4 != "" {print $4}' "$work/values")
        mapfile -t tcp < <(awk -v t="$test" -v d="$depth" '$1 == "tcp" && $2 == t && $3 == d && $4 != "" {print $4}' "$work/values")
        ms=$( [ ${#smc[@]} -gt 0 ] && median_of "${smc[@]}" || echo 0)
        mt=$( [ ${#tcp[@]} -gt 0 ] && median_of "${tcp[@]}" || echo 0)
        printf '%6s %4s %24s %24s %7sx\n' "$test" "$depth" "$(rate_spread "${smc[@]}")" \
            "$(rate_spread "${tcp[@]}")" "$(ratio "$ms" "$mt")"
    done
done
