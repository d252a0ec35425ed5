// One CDC message (smc-protocol.md section 3): the wire codec's type is the
// core's too, so nothing is copied field by field at the border. Byte 26
// (RQ credits) is the shell's: the core neither sets nor reads it.
#pragma once

#include <smcr/wire/cdc.h>

namespace smcr::core {

using CdcInfo = wire::CdcMessage;

}  // namespace smcr::core
