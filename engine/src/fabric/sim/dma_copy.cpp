#include "dma_copy.h"

#include <cstring>

#if defined(__x86_64__)
#include <emmintrin.h>
#endif

namespace smcr::fabric::sim {

void dmaCopy(uint8_t* dst, const uint8_t* src, size_t n) {
#if defined(__x86_64__)
    if (n >= kDmaStreamMinBytes) {
        // Head up to a 16-byte aligned destination, cached.
        const size_t head = (16 - (reinterpret_cast<uintptr_t>(dst) & 15)) & 15;
        std::memcpy(dst, src, head);
        dst += head;
        src += head;
        n -= head;
        // SSE2 is in every x86-64, so no dispatch is needed.
        while (n >= 64) {
            const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src));
            const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + 16));
            const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + 32));
            const __m128i d = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + 48));
            _mm_stream_si128(reinterpret_cast<__m128i*>(dst), a);
            _mm_stream_si128(reinterpret_cast<__m128i*>(dst + 16), b);
            _mm_stream_si128(reinterpret_cast<__m128i*>(dst + 32), c);
            _mm_stream_si128(reinterpret_cast<__m128i*>(dst + 48), d);
            dst += 64;
            src += 64;
            n -= 64;
        }
        _mm_sfence();
    }
#endif
    std::memcpy(dst, src, n);
}

}  // namespace smcr::fabric::sim
