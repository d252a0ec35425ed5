// The copy an RDMA WRITE makes into the responder's memory. An RNIC writes
// by DMA: the data goes to memory (or the LLC), never into the requester
// CPU's cache, and the responder's cached copies of those lines are simply
// invalidated. A plain memcpy on the sim instead pulls every destination line
// into the requester's cache first (a read-for-ownership from the responder,
// which just read the same RMBE lines): one cross-CPU round trip per 64 bytes
// on the poster's critical path. Large writes therefore use non-temporal
// stores, which invalidate without that read, like the DMA they stand for.
#pragma once

#include <cstddef>
#include <cstdint>

namespace smcr::fabric::sim {

// Writes of at least this many bytes go around the cache; shorter ones are a
// plain copy (a CDC-sized write is cheaper through the cache).
inline constexpr size_t kDmaStreamMinBytes = 1024;

// Copies n bytes. Non-temporal stores are weakly ordered: the copy ends with
// a store fence, so a later release store (the CQE that publishes the SEND
// behind this WRITE) is never seen before these bytes.
void dmaCopy(uint8_t* dst, const uint8_t* src, size_t n);

}  // namespace smcr::fabric::sim
