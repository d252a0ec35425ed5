// Cursor arithmetic for RMBEs (RFC 7609 section 4.4; smc-protocol.md section 3).
// On the wire a cursor is {wrap (16 bit), count (32 bit)} with count in
// [0, size). Internally the engine counts bytes as 64-bit stream offsets and
// converts at the CDC border, so a cursor is only ever compared with the
// previous one seen from the same peer.
#pragma once

#include <cstdint>

#include <smcr/wire/cdc.h>

namespace smcr::core {

// The wire's {wrap, count}: one type from the CDC bytes to the arithmetic.
using Cursor = wire::Cursor;

// The wire cursor of an absolute stream offset in a ring of sizeBytes.
Cursor cursorAt(uint64_t offset, uint32_t sizeBytes);

// Moves a cursor forward by bytes (bytes <= sizeBytes); the wrap counter rolls
// over at 16 bits like the kernel's u16.
Cursor cursorAdvance(Cursor cursor, uint32_t bytes, uint32_t sizeBytes);

// Bytes from `older` to `newer` in a ring of sizeBytes. Handles one wrap
// (the protocol never lets a producer run more than one ring ahead of a
// consumer). A cursor that moved backwards (16-bit serial comparison of the
// wrap, then the count) yields 0: stale cursors are ignored, never negative.
uint32_t cursorDiff(Cursor older, Cursor newer, uint32_t sizeBytes);

// -1, 0 or 1 like memcmp, by 16-bit serial order of the wrap then the count.
int cursorCompare(Cursor a, Cursor b);

}  // namespace smcr::core
