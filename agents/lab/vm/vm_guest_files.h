// The guest's two scripts (guest/init.sh, guest/guest.sh), compiled in so
// the lab needs no data files at run time.
#pragma once

#include <QByteArray>

namespace smclab::lab::vm {

QByteArray guestInitScript();  // the initramfs /init
QByteArray guestHostScript();  // /smclab/guest.sh: PID 1 of the VM lab host

}  // namespace smclab::lab::vm
