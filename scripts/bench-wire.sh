#!/usr/bin/env bash
# Is the TCP column the host's TCP? In one run, with repetitions:
#  1. `smclab bench wire`: qperf tcp_bw over loopback and over the local
#     lab's veth, and smclab's own tcp_bw over both, interleaved, pinned as
#     the lab pins its agents, with the ratios side by side;
#     for the veth as the lab makes it and as it was made before (the
#     model's 1500-byte MTU, no receive steering, tbf at the model's rate);
#  2. the demo's TCP column against them: the datapath preset's TCP column
#     alone (tcp_bw through two local agents over the same kind of veth),
#     at the same sizes, from `smclab run`'s cover-letter table.
# Needs root (network namespaces) and qperf. Quote figures only from a
# quiet machine: the load is printed first.
#
#   usage: scripts/bench-wire.sh [-b BIN_DIR] [-l LINK] [-t SECONDS] [-r REPS]
set -euo pipefail
BENCH_DEFAULT_SIZES=1,4,16,64,256,1K,4K,16K,64K
source "$(dirname "$0")/bench-common.sh"
bench_options "$@"
[[ $bench_link == ideal ]] && bench_link=cx4lx-vf   # the demo's link; ideal has no veth
smclab=$bench_bin/smclab

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg) (quote only figures from a quiet machine)"
echo
echo "the veth as it was (MTU 1500, no receive steering, tbf at the model's rate):"
"$smclab" bench wire --link "$bench_link" --sizes "$bench_sizes" -t "$bench_secs" --reps "$bench_reps" \
    --mtu 1500 --no-steering --shape always
echo
echo "the veth as the lab makes it:"
"$smclab" bench wire --link "$bench_link" --sizes "$bench_sizes" -t "$bench_secs" --reps "$bench_reps"

echo
sizes_json=$(for s in "${bench_size_list[@]}"; do bytes_of "$s"; done | paste -sd, -)
cat >"$bench_work/tcp-column.json" <<EOF
{
  "name": "bench-wire: the demo's TCP column",
  "description": "tcp_bw over the local lab's veth through two agents, as the datapath preset's TCP column",
  "workloads": [{"label": "Bandwidth", "workload": "tcp_bw"}],
  "columns": [{"label": "TCP", "transport": "tcp"}],
  "sizes": [$sizes_json],
  "duration": $bench_secs,
  "repetitions": $bench_reps,
  "transportOptions": {"fabric": "sim", "link": "$bench_link"}
}
EOF
echo "the demo's TCP column (smclab run, tcp_bw through the local lab's agents):"
SMCLAB_DB=$bench_work/wire.db "$smclab" run "$bench_work/tcp-column.json" 2>"$bench_work/run.err" ||
    { cat "$bench_work/run.err" >&2; exit 1; }
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
