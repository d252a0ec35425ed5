// A contiguous piece of a ring buffer (sndbuf or RMBE).
#pragma once

#include <array>
#include <cstdint>

namespace smcr::core {

struct RingSpan {
    uint32_t offset = 0;
    uint32_t lengthBytes = 0;
    bool operator==(const RingSpan&) const = default;
};

// At most two spans: a range of a ring crosses its end at most once.
struct RingSpans {
    std::array<RingSpan, 2> spans{};
    uint8_t count = 0;
    uint64_t totalBytes() const { return uint64_t{spans[0].lengthBytes} + (count > 1 ? spans[1].lengthBytes : 0); }
};

// The spans covering bytes [offset, offset + lengthBytes) of the stream in a
// ring of ringBytes (lengthBytes <= ringBytes).
RingSpans ringSpans(uint64_t offset, uint32_t lengthBytes, uint32_t ringBytes);

}  // namespace smcr::core
