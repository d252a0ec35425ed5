#include "common/byte_reader.h"

#include <algorithm>
#include <cstring>

namespace smcr {

ByteReader::ByteReader(std::span<const uint8_t> data, std::string_view context) : m_data(data), m_context(context) {}

bool ByteReader::need(std::string_view field, size_t count) {
    if (!m_ok) return false;
    if (remaining() >= count) return true;
    fail(field, "need " + std::to_string(count) + " byte" + (count == 1 ? "" : "s") + " at offset " +
                    std::to_string(m_offset) + ", have " + std::to_string(remaining()));
    return false;
}

void ByteReader::fail(std::string_view field, std::string_view message) {
    if (!m_ok) return;
    m_ok = false;
    std::string text = m_context;
    if (!text.empty() && !field.empty()) text += '.';
    text += field;
    text += ": ";
    text += message;
    m_error = makeError(Errc::malformed, std::move(text));
}

uint8_t ByteReader::u8(std::string_view field) {
    if (!need(field, 1)) return 0;
    return m_data[m_offset++];
}

uint16_t ByteReader::u16(std::string_view field) {
    if (!need(field, 2)) return 0;
    const uint16_t value = static_cast<uint16_t>((m_data[m_offset] << 8) | m_data[m_offset + 1]);
    m_offset += 2;
    return value;
}

uint32_t ByteReader::u24(std::string_view field) {
    if (!need(field, 3)) return 0;
    uint32_t value = 0;
    for (size_t i = 0; i < 3; ++i) value = (value << 8) | m_data[m_offset + i];
    m_offset += 3;
    return value;
}

uint32_t ByteReader::u32(std::string_view field) {
    if (!need(field, 4)) return 0;
    uint32_t value = 0;
    for (size_t i = 0; i < 4; ++i) value = (value << 8) | m_data[m_offset + i];
    m_offset += 4;
    return value;
}

uint64_t ByteReader::u64(std::string_view field) {
    if (!need(field, 8)) return 0;
    uint64_t value = 0;
    for (size_t i = 0; i < 8; ++i) value = (value << 8) | m_data[m_offset + i];
    m_offset += 8;
    return value;
}

void ByteReader::bytes(std::string_view field, std::span<uint8_t> out) {
    if (!need(field, out.size())) {
        std::fill(out.begin(), out.end(), uint8_t{0});
        return;
    }
    if (!out.empty()) std::memcpy(out.data(), m_data.data() + m_offset, out.size());
    m_offset += out.size();
}

void ByteReader::skip(std::string_view field, size_t count) {
    if (!need(field, count)) return;
    m_offset += count;
}

void ByteReader::seek(std::string_view field, size_t offset) {
    if (!m_ok) return;
    if (offset > m_data.size()) {
        fail(field,
             "offset " + std::to_string(offset) + " is beyond the " + std::to_string(m_data.size()) + "-byte message");
        return;
    }
    m_offset = offset;
}

}  // namespace smcr
