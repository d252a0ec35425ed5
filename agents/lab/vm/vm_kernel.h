// The kernel a VM lab host boots: a pinned Debian kernel package, fetched
// with apt like any other dependency and unpacked into a cache, with the
// initramfs that mounts the host's root (guest/init.sh). Debian's kernel
// builds smc and rdma_rxe as modules; 6.12 is the first Debian kernel on
// which kernel SMC-R works over rxe (6.1's rxe never raises the receive-CQ
// event SMC arms for: agents/lab/README.md).
#pragma once

#include <functional>

#include <smcr/result.h>

#include <QString>

namespace smclab::lab::vm {

// linux-image-VERSION; SMCLAB_VM_KERNEL overrides it.
inline constexpr char kPinnedKernel[] = "6.12.118+deb12-amd64";

struct VmKernel {
    QString version;    // "6.12.118+deb12-amd64"
    QString vmlinuz;    // the kernel image
    QString modules;    // lib/modules of the unpacked package (depmod run): the guest's /lib/modules
    QString initramfs;  // busybox, the 9p/overlay modules and /init
};

using StepReport = std::function<void(const QString& step)>;

// $SMCLAB_VM_CACHE, else $XDG_CACHE_HOME/smclab/vm, else ~/.cache/smclab/vm.
QString vmCacheDir();
// SMCLAB_VM_KERNEL, else kPinnedKernel.
QString vmKernelVersion();

// The kernel `version`, unpacked and ready in the cache: downloads
// linux-image-VERSION with `apt-get download` (or takes a .deb of it already
// in the cache folder), unpacks it with dpkg-deb, runs depmod, and builds
// the initramfs. Errors name the missing program and its Debian package.
smcr::Result<VmKernel> ensureKernel(const QString& version, const StepReport& report);

}  // namespace smclab::lab::vm
