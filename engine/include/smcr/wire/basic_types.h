// Fixed-size identifiers that appear in CLC and LLC messages, and the
// small enums (SMC type, IB path MTU, RMBE size code) shared by them.
// Facts: RFC 7609 section 4; smc-protocol.md sections 1.2-1.4.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace smcr::wire {

using Gid = std::array<uint8_t, 16>;       // RoCE GID (v1: RoCEv1 GID; v2: IPv4-mapped RoCEv2 GID)
using Mac = std::array<uint8_t, 6>;        // Ethernet MAC of the RoCE port
using PeerId = std::array<uint8_t, 8>;     // system id: 2 random bytes + 6-byte MAC
using Eid = std::array<uint8_t, 32>;       // SMC v2 UEID/SEID/EID, blank padded text
using Hostname = std::array<uint8_t, 32>;  // v2 first-contact hostname, blank padded

// Every LLC and CDC message of SMC-R v1 is one 44-byte RoCE SEND
// (SMC_WR_TX_SIZE; the kernel posts 48-byte receive slots).
inline constexpr size_t kLlcMessageBytes = 44;
inline constexpr size_t kCdcMessageBytes = 44;

// Eyecatchers, EBCDIC "SMCR" and "SMCD" (CLC header offset 0 and trailer).
inline constexpr std::array<uint8_t, 4> kEyecatcherSmcr = {0xE2, 0xD4, 0xC3, 0xD9};
inline constexpr std::array<uint8_t, 4> kEyecatcherSmcd = {0xE2, 0xD4, 0xC3, 0xC4};

enum class Eyecatcher : uint8_t { smcr = 0, smcd = 1 };

// CLC header byte 7 [1:0] typev1 and [3:2] typev2 (Proposal): which SMC
// variants are offered. The values are the wire values.
enum class SmcType : uint8_t { r = 0, d = 1, none = 2, both = 3 };
const char* smcTypeName(SmcType type);

// IB path MTU enum carried in the low nibble of CLC Accept/Confirm byte 50
// and LLC ADD_LINK byte 32 (IB spec: 1=256 ... 5=4096). Other values are
// kept as received; ibMtuBytes() returns 0 for them.
enum class IbMtu : uint8_t { invalid = 0, mtu256 = 1, mtu512 = 2, mtu1024 = 3, mtu2048 = 4, mtu4096 = 5 };
uint32_t ibMtuBytes(IbMtu mtu);
// Largest enum value whose byte size is <= mtuBytes; invalid below 256.
IbMtu ibMtuFromBytes(uint32_t mtuBytes);

// RMBE compressed size (CLC Accept/Confirm byte 50 [7:4]): size = 16 KiB << code.
// SMC-R allows codes 0..5 (16 KiB .. 512 KiB); SMC-D goes to 6 (1 MiB).
inline constexpr uint8_t kRmbeSizeCodeMaxSmcr = 5;
inline constexpr uint8_t kRmbeSizeCodeMaxSmcd = 6;
inline constexpr uint32_t kRmbeSizeMinBytes = 16 * 1024;
// Smallest code whose size holds sizeBytes: 0 for <= 16 KiB, else
// ilog2((size-1) >> 14) + 1. Not capped: callers compare with the max.
uint8_t rmbeSizeToCode(uint32_t sizeBytes);
// 16 KiB << code, for code <= 15 (codes above 15 return 0).
uint32_t rmbeCodeToSize(uint8_t code);

}  // namespace smcr::wire
