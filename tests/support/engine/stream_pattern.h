// A deterministic byte stream for integrity checks: byte i of stream `seed`
// is a function of (seed, i), so a receiver verifies every byte without a
// copy of what was sent. Also random message sizes from 1 B to 1 MiB,
// log-uniform so small and large messages both occur often.
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <string>

namespace smclab::test {

inline uint64_t splitmix64(uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

inline void fillPattern(uint64_t seed, uint64_t offset, uint8_t* out, size_t len) {
    for (size_t i = 0; i < len; ++i) {
        const uint64_t pos = offset + i;
        out[i] = static_cast<uint8_t>(splitmix64(seed * 0x100000001B3ull + (pos >> 3)) >> ((pos & 7) * 8));
    }
}

// Returns the index of the first wrong byte, or len when all match.
inline size_t checkPattern(uint64_t seed, uint64_t offset, const uint8_t* data, size_t len) {
    uint8_t expect[4096];
    size_t done = 0;
    while (done < len) {
        const size_t n = std::min(sizeof expect, len - done);
        fillPattern(seed, offset + done, expect, n);
        for (size_t i = 0; i < n; ++i) {
            if (expect[i] != data[done + i]) return done + i;
        }
        done += n;
    }
    return len;
}

class MessageSizes {
public:
    explicit MessageSizes(uint64_t seed, size_t maxBytes = 1 << 20) : m_rng(seed), m_max(maxBytes) {}
    size_t next() {
        const int bits = std::uniform_int_distribution<int>(0, 20)(m_rng);
        const size_t base = size_t{1} << bits;
        const size_t size = base + std::uniform_int_distribution<size_t>(0, base - 1)(m_rng);
        return std::min(std::max<size_t>(size, 1), m_max);
    }

private:
    std::mt19937_64 m_rng;
    size_t m_max;
};

}  // namespace smclab::test
