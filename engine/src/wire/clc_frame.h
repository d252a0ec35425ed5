// The CLC header and trailer shared by every CLC message (smc-protocol.md 1.2).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include <smcr/wire/clc.h>

#include "common/byte_reader.h"
#include "common/byte_writer.h"

namespace smcr::wire {

// Checks the header of a whole message: eyecatcher, type == expected,
// bytes.size() == length field, and (unless the type is Decline, which
// the kernel does not check) the trailer. Errors name `context`.
Result<ClcHeader> checkClcFrame(std::span<const uint8_t> bytes, ClcType expected, std::string_view context);

void writeClcHeader(ByteWriter& out, const ClcHeader& header);
void writeClcTrailer(ByteWriter& out, Eyecatcher eyecatcher);

inline uint8_t clcByte7(uint8_t version, uint8_t typeV2, uint8_t typeV1) {
    return static_cast<uint8_t>(((version & 0x0F) << 4) | ((typeV2 & 0x03) << 2) | (typeV1 & 0x03));
}

}  // namespace smcr::wire
