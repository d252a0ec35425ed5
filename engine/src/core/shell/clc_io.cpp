#include "core/shell/clc_io.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <poll.h>
#include <sys/socket.h>

#include "core/shell/engine_impl.h"

namespace smcr::core {

namespace {

bool startsLikeEyecatcher(const uint8_t* bytes, size_t n) {
    const size_t m = std::min<size_t>(n, 4);
    return std::memcmp(bytes, wire::kEyecatcherSmcr.data(), m) == 0 ||
           std::memcmp(bytes, wire::kEyecatcherSmcd.data(), m) == 0;
}

// Waits until at least `want` bytes can be peeked, or EOF / timeout.
// Returns the count peeked (0 = EOF), -1 timeout, -2 error.
ssize_t peekAtLeast(int fd, uint8_t* buffer, size_t want, uint64_t deadlineNs, bool* mismatch) {
    for (;;) {
        const ssize_t n = ::recv(fd, buffer, want, MSG_PEEK | MSG_DONTWAIT);
        if (n == 0) return 0;
        if (n > 0) {
            if (mismatch != nullptr && !startsLikeEyecatcher(buffer, static_cast<size_t>(n))) {
                *mismatch = true;
                return n;
            }
            if (static_cast<size_t>(n) >= want) return n;
        } else if (errno != EAGAIN && errno != EINTR) {
            return -2;
        }
        const uint64_t now = monotonicNs();
        if (now >= deadlineNs) return -1;
        // Partial data: the rest is in flight; a short sleep beats spinning.
        const int waitMs = n > 0 ? 1 : static_cast<int>((deadlineNs - now + 999999) / 1000000);
        pollfd p{fd, POLLIN, 0};
        ::poll(&p, 1, waitMs);
    }
}

}  // namespace

bool tcpReadable(int fd) {
    pollfd p{fd, POLLIN, 0};
    return ::poll(&p, 1, 0) > 0 && (p.revents & (POLLIN | POLLHUP | POLLERR)) != 0;
}

ClcRead readClc(int fd, int timeoutMs) {
    ClcRead out;
    const uint64_t deadline = monotonicNs() + uint64_t(timeoutMs) * 1000000;
    uint8_t header[wire::kClcHeaderBytes];
    bool mismatch = false;
    const ssize_t n = peekAtLeast(fd, header, sizeof header, deadline, &mismatch);
    if (mismatch) {
        out.status = ClcReadStatus::notClc;
        return out;
    }
    if (n == -1) {
        out.status = ClcReadStatus::timeout;
        return out;
    }
    if (n == 0) {
        out.status = ClcReadStatus::closed;
        return out;
    }
    if (n < 0) {
        out.status = ClcReadStatus::error;
        out.detail = std::strerror(errno);
        return out;
    }
    auto h = wire::peekClcHeader(header);
    if (!h) {
        out.status = ClcReadStatus::malformed;
        out.detail = h.error().message;
        return out;
    }
    out.header = h.value();
    out.bytes.resize(out.header.lengthBytes);
    const ssize_t all = peekAtLeast(fd, out.bytes.data(), out.bytes.size(), deadline, nullptr);
    if (all < static_cast<ssize_t>(out.bytes.size())) {
        out.status = all == -1 ? ClcReadStatus::timeout : ClcReadStatus::closed;
        return out;
    }
    // Consume exactly the message.
    size_t done = 0;
    while (done < out.bytes.size()) {
        const ssize_t r = ::recv(fd, out.bytes.data() + done, out.bytes.size() - done, 0);
        if (r <= 0) {
            out.status = ClcReadStatus::error;
            return out;
        }
        done += static_cast<size_t>(r);
    }
    out.status = ClcReadStatus::ok;
    return out;
}

namespace {

// Appends bytes to *prefix until it holds `want`, EOF or the deadline.
// Reads never ask for more than is missing: what follows the message is not
// the CLC reader's. Returns the ClcReadStatus to stop with, or ok.
ClcReadStatus fillTo(int fd, std::vector<uint8_t>* prefix, size_t want, uint64_t deadlineNs) {
    while (prefix->size() < want) {
        const size_t have = prefix->size();
        prefix->resize(want);
        const ssize_t n = ::recv(fd, prefix->data() + have, want - have, MSG_DONTWAIT);
        prefix->resize(have + (n > 0 ? static_cast<size_t>(n) : 0));
        if (n == 0) return ClcReadStatus::closed;
        if (n > 0) continue;
        if (errno != EAGAIN && errno != EINTR) return ClcReadStatus::error;
        const uint64_t now = monotonicNs();
        if (now >= deadlineNs) return ClcReadStatus::timeout;
        pollfd p{fd, POLLIN, 0};
        ::poll(&p, 1, static_cast<int>((deadlineNs - now + 999999) / 1000000));
    }
    return ClcReadStatus::ok;
}

}  // namespace

ClcRead readClc(int fd, int timeoutMs, std::vector<uint8_t>* prefix) {
    if (prefix == nullptr || prefix->empty()) return readClc(fd, timeoutMs);
    ClcRead out;
    if (!startsLikeEyecatcher(prefix->data(), prefix->size())) {
        out.status = ClcReadStatus::notClc;
        return out;
    }
    const uint64_t deadline = monotonicNs() + uint64_t(timeoutMs) * 1000000;
    out.status = fillTo(fd, prefix, wire::kClcHeaderBytes, deadline);
    if (out.status != ClcReadStatus::ok) {
        if (out.status == ClcReadStatus::error) out.detail = std::strerror(errno);
        return out;
    }
    if (!startsLikeEyecatcher(prefix->data(), prefix->size())) {
        out.status = ClcReadStatus::notClc;
        return out;
    }
    auto h = wire::peekClcHeader(std::span<const uint8_t>(prefix->data(), wire::kClcHeaderBytes));
    if (!h) {
        out.status = ClcReadStatus::malformed;
        out.detail = h.error().message;
        return out;
    }
    out.header = h.value();
    const size_t total = std::max<size_t>(out.header.lengthBytes, wire::kClcHeaderBytes);
    out.status = fillTo(fd, prefix, total, deadline);
    if (out.status != ClcReadStatus::ok) {
        // As readClc: a message cut short is a timeout or a close.
        if (out.status == ClcReadStatus::error) out.status = ClcReadStatus::closed;
        return out;
    }
    out.bytes.assign(prefix->begin(), prefix->begin() + static_cast<std::ptrdiff_t>(total));
    prefix->erase(prefix->begin(), prefix->begin() + static_cast<std::ptrdiff_t>(total));
    return out;
}

Status writeAllTcp(int fd, std::span<const uint8_t> bytes) {
    size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::send(fd, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR) continue;
            return fail(makeSystemError("send", errno));
        }
        done += static_cast<size_t>(n);
    }
    return {};
}

}  // namespace smcr::core
