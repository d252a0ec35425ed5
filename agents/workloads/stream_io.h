// Whole-buffer reads and writes over a blocking Stream whose I/O timeout
// lets them notice a stop request between system calls.
#pragma once

#include <cstddef>

#include "workload.h"

namespace smclab::workloads {

// Writes all len bytes. Errc::closed if the run was stopped meanwhile;
// Errc::timedOut once monotonicNs() passes deadlineNs (0 = no deadline).
Status writeAll(transports::Stream& stream, const void* data, size_t len, const RunContext& ctx,
                uint64_t deadlineNs = 0);
// Reads exactly len bytes; sets *eof (and returns ok) when the stream ended
// cleanly before the first byte, an error if it ended mid-buffer.
Status readFull(transports::Stream& stream, void* data, size_t len, const RunContext& ctx, bool* eof,
                uint64_t deadlineNs = 0);

}  // namespace smclab::workloads
