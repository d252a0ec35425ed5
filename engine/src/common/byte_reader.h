// Bounds-checked, big-endian reader over received bytes. Every wire decoder
// reads through it; nothing casts structs over bytes. The reader is sticky:
// the first overrun or semantic failure is recorded with the name of the
// field ("clc.accept.rmb_rkey: need 4 bytes at offset 41, have 2"), every
// later read returns zero without advancing, and the decoder checks ok() once
// at the end (one catch point, no undefined behaviour on any input).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include <smcr/result.h>

namespace smcr {

class ByteReader {
public:
    // context prefixes every field name in error messages ("clc.accept").
    ByteReader(std::span<const uint8_t> data, std::string_view context);

    uint8_t u8(std::string_view field);
    uint16_t u16(std::string_view field);
    uint32_t u24(std::string_view field);
    uint32_t u32(std::string_view field);
    uint64_t u64(std::string_view field);
    // Copies out.size() bytes; zero-fills `out` on failure.
    void bytes(std::string_view field, std::span<uint8_t> out);
    template <size_t N>
    std::array<uint8_t, N> array(std::string_view field) {
        std::array<uint8_t, N> out{};
        bytes(field, out);
        return out;
    }
    void skip(std::string_view field, size_t count);
    // Moves to an absolute offset; beyond the end is an error naming the field.
    void seek(std::string_view field, size_t offset);

    size_t offset() const { return m_offset; }
    size_t size() const { return m_data.size(); }
    size_t remaining() const { return m_data.size() - m_offset; }

    bool ok() const { return m_ok; }
    // Records a semantic error (first one wins): "<context>.<field>: <message>".
    void fail(std::string_view field, std::string_view message);
    const Error& error() const { return m_error; }
    Unexpected takeError() { return Unexpected{m_error}; }

private:
    // True if `count` bytes are available; otherwise records the overrun.
    bool need(std::string_view field, size_t count);

    std::span<const uint8_t> m_data;
    std::string m_context;
    size_t m_offset = 0;
    bool m_ok = true;
    Error m_error;
};

}  // namespace smcr
