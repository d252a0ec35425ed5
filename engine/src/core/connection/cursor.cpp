#include "core/connection/cursor.h"

namespace smcr::core {

Cursor cursorAt(uint64_t offset, uint32_t sizeBytes) {
    return Cursor{static_cast<uint16_t>((offset / sizeBytes) & 0xFFFFu), static_cast<uint32_t>(offset % sizeBytes)};
}

Cursor cursorAdvance(Cursor cursor, uint32_t bytes, uint32_t sizeBytes) {
    uint64_t count = uint64_t{cursor.count} + bytes;
    if (count >= sizeBytes) {
        count -= sizeBytes;
        cursor.wrap = static_cast<uint16_t>(cursor.wrap + 1);
    }
    cursor.count = static_cast<uint32_t>(count);
    return cursor;
}

int cursorCompare(Cursor a, Cursor b) {
    if (a.wrap != b.wrap) {
        // Serial number arithmetic (RFC 1982 style) so 0xFFFF -> 0 is forward.
        return static_cast<int16_t>(static_cast<uint16_t>(a.wrap - b.wrap)) < 0 ? -1 : 1;
    }
    if (a.count == b.count) return 0;
    return a.count < b.count ? -1 : 1;
}

uint32_t cursorDiff(Cursor older, Cursor newer, uint32_t sizeBytes) {
    if (cursorCompare(newer, older) <= 0) return 0;
    if (older.wrap == newer.wrap) return newer.count - older.count;
    // One wrap: the rest of the ring after `older`, then the start up to `newer`.
    uint64_t diff = uint64_t{sizeBytes} - older.count + newer.count;
    return diff > sizeBytes ? sizeBytes : static_cast<uint32_t>(diff);
}

}  // namespace smcr::core
