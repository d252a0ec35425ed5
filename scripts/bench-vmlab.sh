#!/usr/bin/env bash
# VM lab bring-up time: `smclab lab vm up 2` from nothing running to both
# agents' hello, repeated (each run powers the hosts off first), with the
# guest's own breakdown per host: boot (kernel to init), modules
# (virtio_net, rdma_rxe, smc), rxe and SMC-R set-up, agent start. Prints
# min / median / max of each. The kernel package is fetched once before the
# first run and not counted.
#
#   usage: scripts/bench-vmlab.sh [-b BIN_DIR] [-r REPS]
set -euo pipefail
source "$(dirname "$0")/bench-common.sh"
bin=$bench_root/build/bin reps=3
while getopts "b:r:h" opt; do
    case $opt in
        b) bin=$OPTARG ;;
        r) reps=$OPTARG ;;
        *) bench_usage; exit 2 ;;
    esac
done
work=$(mktemp -d)
lab=$work/lab.json
trap '"$bin/smclab" lab vm down --lab "$lab" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg) (quote only figures from a quiet machine)"
"$bin/smclab" lab vm up 1 --lab "$lab" >/dev/null 2>&1   # fetches and unpacks the kernel once
"$bin/smclab" lab vm down --lab "$lab" >/dev/null

declare -A series
for ((i = 1; i <= reps; i++)); do
    start=$(date +%s.%N)
    "$bin/smclab" lab vm up 2 --lab "$lab" >"$work/up.out" 2>"$work/up.err" || { cat "$work/up.err" >&2; exit 1; }
    end=$(date +%s.%N)
    series[total]+="$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }') "
    # "vm1: agent 0.1.0 answered after 15.2 s (guest: boot 5.3 s, modules 3.2 s, rxe 1.8 s, agent 1.7 s)"
    while read -r host wall boot modules rxe agent; do
        series[wall]+="$wall "; series[boot]+="$boot "; series[modules]+="$modules "
        series[rxe]+="$rxe "; series[agent]+="$agent "
    done < <(sed -n 's/^\(vm[0-9]*\): agent .* after \([0-9.]*\) s (guest: boot \([0-9.]*\) s, modules \([0-9.]*\) s, rxe \([0-9.]*\) s, agent \([0-9.]*\) s)$/\1 \2 \3 \4 \5 \6/p' "$work/up.err")
    "$bin/smclab" lab vm down --lab "$lab" >/dev/null
done

stats() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{ v[NR] = $1 } END { printf "%6.1f %6.1f %6.1f", v[1], v[int((NR + 1) / 2)], v[NR] }'; }
printf "%-34s %6s %6s %6s   (seconds, %d runs of 2 hosts)\n" "" min median max "$reps"
printf "%-34s %s\n" "vm up 2: both agents answering" "$(echo "${series[total]}" | stats)"
printf "%-34s %s\n" "per host: QEMU start to hello" "$(echo "${series[wall]}" | stats)"
printf "%-34s %s\n" "  guest boot (kernel to init)" "$(echo "${series[boot]}" | stats)"
printf "%-34s %s\n" "  modules" "$(echo "${series[modules]}" | stats)"
printf "%-34s %s\n" "  rxe, UEID, pnet, sysctls" "$(echo "${series[rxe]}" | stats)"
printf "%-34s %s\n" "  agent start" "$(echo "${series[agent]}" | stats)"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
