// Work-request ids: what a completion belongs to. The top byte is the kind;
// CDC SENDs carry the connection token, receives their buffer slot.
#pragma once

#include <cstdint>

namespace smcr::core {

enum class WrKind : uint8_t { invalid = 0, cdc = 1, llc = 2, rdmaWrite = 3, recv = 4 };

inline uint64_t makeWrId(WrKind kind, uint32_t value) {
    return (uint64_t{static_cast<uint8_t>(kind)} << 56) | value;
}
inline WrKind wrKind(uint64_t wrId) {
    return static_cast<WrKind>(wrId >> 56);
}
inline uint32_t wrValue(uint64_t wrId) {
    return static_cast<uint32_t>(wrId);
}

// Every CDC and LLC message is one 44-byte SEND into a 48-byte receive slot
// (SMC_WR_TX_SIZE / SMC_WR_BUF_SIZE).
inline constexpr uint32_t kWrBufferBytes = 48;
inline constexpr uint32_t kWrMessageBytes = 44;

}  // namespace smcr::core
