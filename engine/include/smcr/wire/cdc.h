// CDC (connection data control): the 44-byte SEND (type 0xFE) that follows
// the RDMA WRITEs of a connection and carries its cursors and flags.
// Layout: RFC 7609 section 4.6, smc-protocol.md section 3.
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include <smcr/result.h>
#include <smcr/wire/basic_types.h>

namespace smcr::wire {

inline constexpr uint8_t kCdcType = 0xFE;

// 8 bytes on the wire: reserved(2), wrap(2), count(4).
struct Cursor {
    uint16_t wrap = 0;
    uint32_t count = 0;  // offset in the RMBE, < RMBE size
    bool operator==(const Cursor&) const = default;
};

struct CdcProducerFlags {                  // byte 24
    bool writeBlocked = false;             // 0x80
    bool urgentPending = false;            // 0x40
    bool urgentPresent = false;            // 0x20
    bool consumerUpdateRequested = false;  // 0x10
    bool failoverValidation = false;       // 0x08
    bool operator==(const CdcProducerFlags&) const = default;
};

struct CdcConnStateFlags {           // byte 25
    bool peerDoneWriting = false;    // 0x80
    bool peerConnClosed = false;     // 0x40
    bool peerAbnormalClose = false;  // 0x20
    bool operator==(const CdcConnStateFlags&) const = default;
};

struct CdcMessage {
    uint16_t seqno = 0;           // 2
    uint32_t alertToken = 0;      // 4, token of the receiving connection
    Cursor producer;              // 8, in the receiver's RMBE
    Cursor consumer;              // 16, how far the sender consumed its own RMBE
    CdcProducerFlags prodFlags;   // 24
    CdcConnStateFlags connFlags;  // 25
    // 26: EXPERIMENTAL (RQ credits RFC, seed 004): receive credits returned
    // to the peer; reserved (zero) in the published protocol. Zero unless
    // credits were negotiated in CLC Accept/Confirm byte 51.
    uint8_t credits = 0;
    bool operator==(const CdcMessage&) const = default;
};

using CdcBytes = std::array<uint8_t, kCdcMessageBytes>;

CdcBytes encode(const CdcMessage& msg);
// Takes exactly 44 bytes: byte 0 must be 0xFE and byte 1 must be 44.
Result<CdcMessage> decodeCdc(std::span<const uint8_t> bytes);

}  // namespace smcr::wire
