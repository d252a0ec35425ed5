#!/usr/bin/env bash
# libsmcr <-> the kernel's SMC-R over a link that lies idle past the
# kernel's TEST_LINK time at its default (net.smc.smcr_testlink_time 30 s;
# test_vmlab_interop_life sets 3 s). A libsmcr client (smcr_interop_peer
# under smc_synopt) on vm1 echoes its first 32 KiB through the kernel's echo
# server (echo_conns.py under ksmc_run) on vm2, lies idle for IDLE seconds
# (default 70: two TEST_LINK periods and more), then sends the other 32 KiB:
# the link group must still be the first (no link down, no second group)
# and every byte must come back intact. Each TEST_LINK gets 2 s for its
# answer, so an unanswered one takes the link down within 32 s of silence.
# Both ends time a TEST_LINK from the link's last receive, so with both at
# 30 s either may probe first and an answered probe resets the other's
# idle time: libsmcr's own TEST_LINK is off here (smcr_testlink_time=0), so
# every probe is the kernel's (smc_llc.c smc_llc_testlink_work) and libsmcr
# counts its answers (smcr.test_links_answered). Not in CI: a run takes
# IDLE seconds plus the guests' start.
#
#   usage: scripts/vmlab-testlink-idle.sh [-b BIN_DIR] [-l LAB_FILE] [-i IDLE_S]
#          -l: a lab whose vm1 and vm2 are up (smclab lab vm up 2 --lab FILE);
#          without it the script boots a pair of its own and powers it off.
set -euo pipefail
source "$(dirname "$0")/bench-common.sh"
bin=$bench_root/build/bin lab="" idle=70
while getopts "b:l:i:h" opt; do
    case $opt in
        b) bin=$OPTARG ;;
        l) lab=$OPTARG ;;
        i) idle=$OPTARG ;;
        *) bench_usage; exit 2 ;;
    esac
done
bin=$(cd "$bin" && pwd)
work=$(mktemp -d)
own=0
if [[ -z $lab ]]; then
    lab=$work/lab.json own=1
fi
port=$((5900 + $$ % 50))
server_out=/tmp/testlink-idle-$port.out
vm() { "$bin/smclab" lab vm exec "$1" --timeout $((idle + 300)) --lab "$lab" -- "${@:2}"; }
cleanup() {
    vm vm2 sh -c "kill \$(sed -n 's/.*listening pid=//p' $server_out) 2>/dev/null; rm -f $server_out" >/dev/null 2>&1 || true
    if ((own)); then "$bin/smclab" lab vm down --lab "$lab" >/dev/null 2>&1 || true; fi
    rm -rf "$work"
}
trap cleanup EXIT
if ((own)); then
    "$bin/smclab" lab vm up 2 --lab "$lab" --timeout 300 >/dev/null
fi

for host in vm1 vm2; do
    echo "$host: net.smc.smcr_testlink_time = $(vm "$host" sysctl -n net.smc.smcr_testlink_time)"
done
script=$bench_root/tests/vmlab/echo_conns.py
vm vm2 sh -c "setsid ksmc_run python3 $script server 10.77.0.2 $port > $server_out 2>&1 < /dev/null &
    for i in \$(seq 600); do grep -q listening $server_out && break; sleep 0.2; done; grep listening $server_out"
start=$(date +%s)
client=$(vm vm1 env SMCR_SETTINGS=lab.fabric=verbs,lab.ueid=SMCLAB-VM,smcr_testlink_time=0 smc_synopt "$port" -- \
    "$bin/smcr_interop_peer" client 10.77.0.2 "$port" --conns 1 --bytes 65536 --pause-ms $((idle * 1000)) 2>&1) || true
took=$(($(date +%s) - start))
echo "$client" | grep -E '^(ok|FAIL|conns|stat smcr\.(lgr_created|links_down|test_links_sent|test_links_answered|conns_aborted))' || true
echo "server: $(vm vm2 grep -E '^end ' "$server_out" | tr -d '\r')"
stat() { echo "$client" | sed -n "s/^stat smcr\.$1 //p" | head -1; }
fail=0
echo "$client" | grep -q '^ok connections=1 ' || { echo "FAIL: the client's bytes did not all come back"; fail=1; }
echo "$client" | grep -q '^conns smcr=1 fallback=0' || { echo "FAIL: not SMC-R"; fail=1; }
[[ $(stat lgr_created) == 1 ]] || { echo "FAIL: lgr_created $(stat lgr_created), not 1"; fail=1; }
[[ -z $(stat links_down) ]] || { echo "FAIL: links_down $(stat links_down)"; fail=1; }
[[ -z $(stat test_links_sent) ]] || { echo "FAIL: libsmcr probed ($(stat test_links_sent)): its TEST_LINK is off"; fail=1; }
# A probe after every 30 s of silence: at least one in any idle of 32 s and more.
answered=$(stat test_links_answered)
if ((idle >= 32)) && ((${answered:-0} < idle / 32)); then
    echo "FAIL: ${answered:-0} of the kernel's TEST_LINKs answered in ${idle} s idle"
    fail=1
fi
if ((fail)); then
    echo "$client" >&2
    exit 1
fi
echo "PASS: idle ${idle} s at the kernel's TEST_LINK time: ${answered:-0} kernel TEST_LINKs answered, link up, 64 KiB intact; ${took} s in all"
