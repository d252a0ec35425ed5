#include "stream_io.h"

#include "clock.h"

namespace smclab::workloads {

namespace {

// A blocking call timed out: give up if stopped or past the deadline.
Status afterTimeout(const RunContext& ctx, uint64_t deadlineNs) {
    if (ctx.stopRequested()) return smcr::fail(smcr::Errc::closed, "stopped");
    if (deadlineNs != 0 && monotonicNs() > deadlineNs)
        return smcr::fail(smcr::Errc::timedOut, "the peer did not answer in time");
    return {};
}

}  // namespace

Status writeAll(transports::Stream& stream, const void* data, size_t len, const RunContext& ctx, uint64_t deadlineNs) {
    const auto* p = static_cast<const char*>(data);
    while (len > 0) {
        auto n = stream.write(p, len);
        if (!n) {
            if (n.error().code == smcr::Errc::timedOut) {
                if (Status s = afterTimeout(ctx, deadlineNs); !s) return s;
                continue;
            }
            return smcr::fail(n.error());
        }
        p += *n;
        len -= *n;
    }
    return {};
}

Status readFull(transports::Stream& stream, void* data, size_t len, const RunContext& ctx, bool* eof,
                uint64_t deadlineNs) {
    auto* p = static_cast<char*>(data);
    size_t got = 0;
    if (eof != nullptr) *eof = false;
    while (got < len) {
        auto n = stream.read(p + got, len - got);
        if (!n) {
            if (n.error().code == smcr::Errc::timedOut) {
                if (Status s = afterTimeout(ctx, deadlineNs); !s) return s;
                continue;
            }
            return smcr::fail(n.error());
        }
        if (*n == 0) {
            if (got == 0 && eof != nullptr) {
                *eof = true;
                return {};
            }
            return smcr::fail(smcr::Errc::connectionReset,
                              "stream ended after " + std::to_string(got) + " of " + std::to_string(len) + " bytes");
        }
        got += *n;
    }
    return {};
}

}  // namespace smclab::workloads
