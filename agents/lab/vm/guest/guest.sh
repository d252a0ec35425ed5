#!/bin/sh
# A VM lab host's PID 1, in the host's root file system (read-only, with a
# tmpfs overlay): the kernel's SMC-R and rxe made ready, then smclab-agent.
# Settings come from /smclab/vm.env, written by `smclab lab vm up`;
# progress and failures go to the console (the host's console.log), as
# lines that start "smclab-vm:". Commands the host drops into
# /smclab/exec/ (`smclab lab vm exec`) run here, their output beside them.
. /smclab/vm.env
say() { echo "smclab-vm: $*"; }
stamp() { cut -d' ' -f1 /proc/uptime; }
poweroff_now() {
    sync
    echo o > /proc/sysrq-trigger
    sleep 30
}
fail() {
    say "FAILED: $*"
    poweroff_now
}
t_boot=$(stamp)
mount -t sysfs sys /sys
# No tmpfs over /tmp: a build (and so this lab's programs) may live under
# the host's /tmp, and the overlay keeps the guest's writes there anyway.
mount -t tmpfs -o mode=0755 run /run
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs -o mode=1777 shm /dev/shm
hostname "$VM_NAME"
export HOME=/root PATH="$SMCLAB_BIN:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
export SMCLAB_VM="$VM_NAME" SMCLAB_VM_ACCEL="$VM_ACCEL"

[ -x "$SMCLAB_BIN/smclab" ] && [ -x "$SMCLAB_BIN/smclab-agent" ] ||
    fail "$SMCLAB_BIN/smclab or smclab-agent is not visible in the guest (the host's / is shared read-only; is it under a mount the guest cannot see?)"

# Modules: the NICs, soft-RoCE, the kernel's SMC and its diagnostics.
for m in virtio_net rdma_rxe smc smc_diag; do
    modprobe "$m" || fail "modprobe $m"
done
t_modules=$(stamp)

# eth0: the virtual link between the VM hosts; eth1: QEMU's user network,
# through which the controller reaches the agent (a forwarded port).
ip link set lo up
ip link set eth0 up || fail "no eth0 (the virtual link)"
ip addr add "$VM_LINK_ADDR/24" dev eth0
if [ -n "$VM_LINK2_ADDR" ]; then
    ip link set eth2 up || fail "no eth2 (the second virtual link)"
    ip addr add "$VM_LINK2_ADDR/24" dev eth2
fi
ip link set eth1 up || fail "no eth1 (the control network)"
ip addr add 10.0.2.15/24 dev eth1

# rxe on the link: a RoCEv2 verbs device (rdma-core's rxe provider).
rdma link add rxe0 type rxe netdev eth0 || fail "rdma link add rxe0"
[ -n "$VM_LINK2_ADDR" ] && { rdma link add rxe1 type rxe netdev eth2 || fail "rdma link add rxe1"; }
t_rxe=$(stamp)

# Kernel SMC-R over rxe: SMC-Rv2 only (rxe has RoCEv2 GIDs only), which
# needs a UEID both hosts share; pnet entries tie rxe to its netdev (6.1
# cannot find it otherwise); the sysctls the lab pins.
"$SMCLAB_BIN/smclab" ksmc ueid add "$VM_UEID" || fail "UEID $VM_UEID"
"$SMCLAB_BIN/smclab" ksmc pnet add "$VM_PNET" -I eth0 -D rxe0 -P 1 || fail "pnet $VM_PNET"
if [ -n "$VM_LINK2_ADDR" ]; then
    "$SMCLAB_BIN/smclab" ksmc pnet add "$VM_PNET" -I eth2 -D rxe1 -P 1 || fail "pnet $VM_PNET eth2"
fi
for kv in $VM_SYSCTLS; do
    name=${kv%%=*}
    if [ -e "/proc/sys/net/smc/$name" ]; then
        echo "${kv#*=}" > "/proc/sys/net/smc/$name" || fail "net.smc.$name"
    fi
done
ulimit -n 65536
ulimit -l unlimited

# Client runs may reach the other hosts on the links (--allow-peer); server
# runs listen on the link address (--data-address), where the other host's
# clients find them.
peers="--allow-peer $VM_LINK_NET"
[ -n "$VM_LINK2_NET" ] && peers="$peers --allow-peer $VM_LINK2_NET"
"$SMCLAB_BIN/smclab-agent" --listen "0.0.0.0:$VM_AGENT_PORT" --token-file /smclab/agent.token \
    $peers --data-address "$VM_LINK_ADDR" > /smclab/agent.log 2>&1 &
agent=$!
i=0
while ! grep -q "listening" /smclab/agent.log 2>/dev/null; do
    kill -0 "$agent" 2>/dev/null || fail "smclab-agent exited: $(tail -n 3 /smclab/agent.log | tr '\n' ' ')"
    i=$((i + 1))
    [ "$i" -gt 600 ] && fail "smclab-agent did not listen within 60 s"
    sleep 0.1
done
t_agent=$(stamp)
say "ready kernel=$(uname -r) boot=$t_boot modules=$t_modules rxe=$t_rxe agent=$t_agent"
echo "$t_boot $t_modules $t_rxe $t_agent" > /smclab/ready

# Serve `smclab lab vm exec` until powered off: N.sh -> N.out, N.rc.
mkdir -p /smclab/exec
while :; do
    if ! kill -0 "$agent" 2>/dev/null && [ ! -e /smclab/agent.exited ]; then
        wait "$agent"
        echo "$?" > /smclab/agent.exited
        say "smclab-agent exited ($(cat /smclab/agent.exited))"
    fi
    for job in /smclab/exec/*.sh; do
        [ -e "$job" ] || continue
        # A program the host rebuilt since the guest last mapped it can come
        # back under the same 9p inode, and the pages cached for the old one
        # are then mapped into the new (a rebuilt test crashed at start):
        # drop them before each command.
        echo 3 > /proc/sys/vm/drop_caches
        base=${job%.sh}
        mv "$job" "$base.run"
        (sh "$base.run" > "$base.out" 2>&1; echo "$?" > "$base.rc.tmp"; mv "$base.rc.tmp" "$base.rc") &
    done
    [ -e /smclab/poweroff ] && poweroff_now
    sleep 0.2
done
