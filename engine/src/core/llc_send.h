// Posting one LLC message on a link: a signaled, solicited SEND, inline when
// the QP takes it, otherwise copied into the next slot of the link's
// send-buffer ring. Shared by the primary link and a standby path, so both
// put the same bytes on the wire; slot accounting stays with the caller.
#pragma once

#include <cstdint>
#include <cstring>

#include <smcr/fabric.h>
#include <smcr/result.h>
#include <smcr/wire/llc.h>

#include "wr_id.h"

namespace smcr::core {

inline Status postLlcSend(fabric::QueuePair& qp, bool inlineSends, fabric::MemoryRegion* sendBuffers,
                          uint32_t& nextSendBuffer, uint32_t sendSlots, const wire::LlcBytes& bytes) {
    fabric::SendWr wr;
    wr.wrId = makeWrId(WrKind::llc, 0);
    wr.opcode = fabric::WrOpcode::send;
    wr.flags = fabric::SendFlags::signaled | fabric::SendFlags::solicited;
    wr.numSge = 1;
    if (inlineSends) {
        wr.flags = wr.flags | fabric::SendFlags::inlineData;
        wr.sg[0] = {reinterpret_cast<uint64_t>(bytes.data()), kWrMessageBytes, 0};
    } else {
        uint8_t* slot = sendBuffers->data() + (nextSendBuffer++ % sendSlots) * kWrBufferBytes;
        std::memcpy(slot, bytes.data(), kWrMessageBytes);
        wr.sg[0] = {reinterpret_cast<uint64_t>(slot), kWrMessageBytes, sendBuffers->lkey()};
    }
    return qp.postSend(wr);
}

}  // namespace smcr::core
