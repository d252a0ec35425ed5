// Big-endian writer into a caller-sized buffer: the encoders size the
// message first, then fill it field by field. Writing past the end is a bug
// in the encoder; it is caught (sticky overflowed()) instead of corrupting memory.
#pragma once

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

namespace smcr {

class ByteWriter {
public:
    explicit ByteWriter(std::span<uint8_t> out) : m_out(out) {}

    void u8(uint8_t value) {
        if (room(1)) m_out[m_offset++] = value;
    }
    void u16(uint16_t value) { be(value, 2); }
    void u24(uint32_t value) { be(value & 0xFFFFFFu, 3); }
    void u32(uint32_t value) { be(value, 4); }
    void u64(uint64_t value) { be(value, 8); }
    void bytes(std::span<const uint8_t> data) {
        if (!room(data.size())) return;
        if (!data.empty()) std::memcpy(m_out.data() + m_offset, data.data(), data.size());
        m_offset += data.size();
    }
    void zeros(size_t count) {
        if (!room(count)) return;
        std::memset(m_out.data() + m_offset, 0, count);
        m_offset += count;
    }
    // Absolute move; bytes skipped over keep whatever the buffer held (encoders zero it first).
    void seek(size_t offset) {
        if (offset > m_out.size()) {
            m_overflowed = true;
            return;
        }
        m_offset = offset;
    }

    size_t offset() const { return m_offset; }
    bool overflowed() const { return m_overflowed; }

private:
    bool room(size_t count) {
        if (m_out.size() - m_offset >= count) return true;
        m_overflowed = true;
        assert(!"ByteWriter: encoder wrote past its buffer");
        return false;
    }
    void be(uint64_t value, size_t width) {
        if (!room(width)) return;
        for (size_t i = 0; i < width; ++i) {
            m_out[m_offset + i] = static_cast<uint8_t>(value >> (8 * (width - 1 - i)));
        }
        m_offset += width;
    }

    std::span<uint8_t> m_out;
    size_t m_offset = 0;
    bool m_overflowed = false;
};

}  // namespace smcr
