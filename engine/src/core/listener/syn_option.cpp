#include <cstdlib>
#include <cstring>
#include <mutex>

#include <linux/bpf.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <smcr/syn_option.h>

namespace smcr {

namespace {

// The values smc_syn_option.bpf.c stores.
constexpr uint8_t kRecordPresent = 1;
constexpr uint8_t kRecordAbsent = 2;

long bpfCall(int cmd, bpf_attr* attr) {
    return ::syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

// The pinned map of the smc_synopt this process runs under, opened once; -1 without one.
int recordMap() {
    static int fd = -1;
    static std::once_flag once;
    std::call_once(once, [] {
        const char* path = std::getenv("SMCR_SYN_OPTION_MAP");
        if (path == nullptr || *path == '\0') return;
        bpf_attr attr;
        std::memset(&attr, 0, sizeof attr);
        attr.pathname = reinterpret_cast<uint64_t>(path);
        attr.file_flags = BPF_F_RDONLY;
        fd = static_cast<int>(bpfCall(BPF_OBJ_GET, &attr));
    });
    return fd;
}

}  // namespace

bool synOptionRecorded() {
    return recordMap() >= 0;
}

const char* peerSynOptionName(PeerSynOption option) {
    switch (option) {
        case PeerSynOption::unknown:
            return "unknown";
        case PeerSynOption::present:
            return "present";
        case PeerSynOption::absent:
            return "absent";
    }
    return "?";
}

PeerSynOption peerSynOption(int fd) {
    const int map = recordMap();
    if (map < 0) return PeerSynOption::unknown;
    // A socket-storage map takes the socket's fd as its key from user space.
    int key = fd;
    uint8_t value = 0;
    bpf_attr attr;
    std::memset(&attr, 0, sizeof attr);
    attr.map_fd = static_cast<uint32_t>(map);
    attr.key = reinterpret_cast<uint64_t>(&key);
    attr.value = reinterpret_cast<uint64_t>(&value);
    if (bpfCall(BPF_MAP_LOOKUP_ELEM, &attr) != 0) return PeerSynOption::unknown;
    if (value == kRecordPresent) return PeerSynOption::present;
    if (value == kRecordAbsent) return PeerSynOption::absent;
    return PeerSynOption::unknown;
}

}  // namespace smcr
