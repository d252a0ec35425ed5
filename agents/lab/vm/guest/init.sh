#!/bin/busybox sh
# The VM lab host's initramfs /init (busybox only): the host's root file
# system over 9p, read-only, under a tmpfs overlay; the unpacked kernel
# package's modules over it; the host's per-VM folder (read-write) at
# /smclab; then /smclab/guest.sh as PID 1 in that root.
bb=/bin/busybox
say() { $bb echo "smclab-vm: $*"; }
fail() {
    say "FAILED: $*"
    $bb echo o > /proc/sysrq-trigger
    $bb sleep 30
}
$bb mkdir -p /proc /sys /dev /lower /rw /newroot
$bb mount -t proc proc /proc
$bb mount -t devtmpfs dev /dev
$bb mount -t sysfs sys /sys
for m in netfs 9pnet 9pnet_virtio 9p overlay; do
    $bb insmod /mod/$m.ko || fail "insmod $m"
done
# msize: 9p moves at most this much per request (the default 8 KiB makes
# every program start slow under emulation). No cache: the host rebuilds
# programs while guests run, and a cached view of a rewritten file is a
# mix of old and new pages (a build's smclab crashed that way).
opts=trans=virtio,version=9p2000.L,msize=262144
$bb mount -t 9p -o $opts,ro hostroot /lower || fail "mount the host's root (9p tag hostroot)"
$bb mount -t tmpfs -o size=4g,mode=0755 rw /rw
$bb mkdir -p /rw/upper /rw/work
$bb mount -t overlay overlay -o lowerdir=/lower,upperdir=/rw/upper,workdir=/rw/work /newroot || fail "overlay root"
$bb mkdir -p /newroot/lib/modules /newroot/smclab
$bb mount -t 9p -o $opts,ro modules /newroot/lib/modules || fail "mount the kernel's modules (9p tag modules)"
$bb mount -t 9p -o $opts share /newroot/smclab || fail "mount the VM's folder (9p tag share)"
[ -x /newroot/smclab/guest.sh ] || fail "no /smclab/guest.sh in the VM's folder"
$bb umount /sys
$bb mount --move /dev /newroot/dev
$bb mount --move /proc /newroot/proc
exec $bb switch_root /newroot /smclab/guest.sh
