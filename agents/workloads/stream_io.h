// Whole-buffer reads and writes over a blocking Stream whose I/O timeout
// lets them notice a stop request between system calls.
#pragma once

#include <cstddef>

#include "workload.h"

namespace smclab::workloads {

// Writes all len bytes. Errc::closed if the run was stopped meanwhile.
Status writeAll(transports::Stream& stream, const void* data, size_t len, const RunContext& ctx);
// Reads exactly len bytes; returns false in *eof (and ok) when the stream
// ended cleanly before the first byte, an error if it ended mid-buffer.
Status readFull(transports::Stream& stream, void* data, size_t len, const RunContext& ctx, bool* eof);

}  // namespace smclab::workloads
