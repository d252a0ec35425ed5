#include "core/connection/ring_span.h"

#include <algorithm>

namespace smcr::core {

RingSpans ringSpans(uint64_t offset, uint32_t lengthBytes, uint32_t ringBytes) {
    RingSpans out;
    if (lengthBytes == 0 || ringBytes == 0) return out;
    const auto start = static_cast<uint32_t>(offset % ringBytes);
    const uint32_t first = std::min(lengthBytes, ringBytes - start);
    out.spans[0] = {start, first};
    out.count = 1;
    if (first < lengthBytes) {
        out.spans[1] = {0, lengthBytes - first};
        out.count = 2;
    }
    return out;
}

}  // namespace smcr::core
