// Whether KVM boots a guest on this host, not just whether /dev/kvm opens.
// Some hosts (nested virtualisation) hand out a /dev/kvm whose vCPUs fail:
// QEMU dies setting an MSR, or the guest stops at its first instructions
// with "KVM internal error" and QEMU waits forever. A lab that chose KVM
// there would never come up; TCG would.
#pragma once

#include <QString>

#include "vm_kernel.h"

namespace smclab::lab::vm {

struct KvmVerdict {
    bool boots = false;
    QString why;  // when it does not: what the probe saw
};

// Boots `kernel` without an initramfs under KVM (-cpu host) until the
// kernel, late in its boot, finds no root device and panics (QEMU exits
// with -no-reboot): about a second where KVM works, at most 15 s where it
// does not. The verdict is kept per host boot (/proc/sys/kernel/random/
// boot_id) and kernel in the kernel's cache directory.
KvmVerdict probeKvmBoot(const VmKernel& kernel);

}  // namespace smclab::lab::vm
