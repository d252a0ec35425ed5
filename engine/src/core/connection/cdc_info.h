// The fields of one CDC message as the core sees them (smc-protocol.md
// section 3). The shell converts to and from the wire codec at the border.
#pragma once

#include <cstdint>

#include "core/connection/cursor.h"

namespace smcr::core {

struct CdcInfo {
    uint16_t seqno = 0;
    uint32_t token = 0;  // alert token of the receiving connection
    Cursor producer;     // where the sender's data ends in the receiver's RMBE
    Cursor consumer;     // how far the sender consumed its own RMBE
    // Producer flags (byte 24).
    bool writeBlocked = false;
    bool urgentPending = false;
    bool urgentPresent = false;
    bool consumerUpdateRequested = false;
    bool failoverValidation = false;
    // Connection state flags (byte 25).
    bool peerDoneWriting = false;
    bool peerConnClosed = false;
    bool peerAbnormalClose = false;
    bool operator==(const CdcInfo&) const = default;
};

}  // namespace smcr::core
