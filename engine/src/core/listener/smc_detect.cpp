#include "core/listener/smc_detect.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <poll.h>
#include <sys/socket.h>

#include <smcr/wire/basic_types.h>

#include "core/shell/engine_impl.h"

namespace smcr::core {

const char* detectResultName(DetectResult result) {
    switch (result) {
        case DetectResult::smc:
            return "smc";
        case DetectResult::plainTcp:
            return "plain-tcp";
        case DetectResult::silent:
            return "silent";
        case DetectResult::closed:
            return "closed";
    }
    return "?";
}

DetectResult peekSmcClient(int fd, size_t* peekedBytes) {
    uint8_t first[4];
    const ssize_t n = ::recv(fd, first, sizeof first, MSG_PEEK | MSG_DONTWAIT);
    if (peekedBytes != nullptr) *peekedBytes = n > 0 ? static_cast<size_t>(n) : 0;
    if (n == 0) return DetectResult::closed;
    if (n < 0) return errno == EAGAIN || errno == EINTR ? DetectResult::silent : DetectResult::closed;
    const auto len = static_cast<size_t>(n);
    const bool smcr = std::memcmp(first, wire::kEyecatcherSmcr.data(), len) == 0;
    const bool smcd = std::memcmp(first, wire::kEyecatcherSmcd.data(), len) == 0;
    if (!smcr && !smcd) return DetectResult::plainTcp;
    return len == sizeof first ? DetectResult::smc : DetectResult::silent;
}

DetectResult readSmcClient(int fd, std::vector<uint8_t>& prefix) {
    uint8_t bytes[kFirstReadBytes];
    const size_t room = prefix.size() < sizeof bytes ? sizeof bytes - prefix.size() : 0;
    ssize_t n = 0;
    if (room > 0) {
        n = ::recv(fd, bytes, room, MSG_DONTWAIT);
        if (n > 0) prefix.insert(prefix.end(), bytes, bytes + n);
    }
    if (n == 0 && room > 0) return DetectResult::closed;
    if (n < 0 && errno != EAGAIN && errno != EINTR) return DetectResult::closed;
    if (prefix.empty()) return DetectResult::silent;
    const size_t len = std::min<size_t>(prefix.size(), 4);
    const bool smcr = std::memcmp(prefix.data(), wire::kEyecatcherSmcr.data(), len) == 0;
    const bool smcd = std::memcmp(prefix.data(), wire::kEyecatcherSmcd.data(), len) == 0;
    if (!smcr && !smcd) return DetectResult::plainTcp;
    return len == 4 ? DetectResult::smc : DetectResult::silent;
}

DetectResult detectSmcClient(int fd, int timeoutMs) {
    const uint64_t deadline = monotonicNs() + uint64_t(timeoutMs) * 1000000;
    uint8_t first[4];
    for (;;) {
        const ssize_t n = ::recv(fd, first, sizeof first, MSG_PEEK | MSG_DONTWAIT);
        if (n == 0) return DetectResult::closed;
        if (n > 0) {
            const auto len = static_cast<size_t>(n);
            const bool smcr = std::memcmp(first, wire::kEyecatcherSmcr.data(), len) == 0;
            const bool smcd = std::memcmp(first, wire::kEyecatcherSmcd.data(), len) == 0;
            if (!smcr && !smcd) return DetectResult::plainTcp;
            if (len == sizeof first) return DetectResult::smc;
        } else if (errno != EAGAIN && errno != EINTR) {
            return DetectResult::closed;
        }
        const uint64_t now = monotonicNs();
        if (now >= deadline) return n > 0 ? DetectResult::plainTcp : DetectResult::silent;
        // A partial eyecatcher: the rest is in flight, look again shortly.
        const int waitMs = n > 0 ? 1 : static_cast<int>((deadline - now + 999999) / 1000000);
        pollfd p{fd, POLLIN, 0};
        ::poll(&p, 1, waitMs);
    }
}

}  // namespace smcr::core
