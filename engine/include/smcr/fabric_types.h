// Plain values of the fabric interface: addresses, attributes, work requests
// and completions. They mirror libibverbs (libibverbs/verbs.h) closely enough
// that the verbs backend maps them one to one, and they carry no SMC knowledge.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace smcr::fabric {

using Gid = std::array<uint8_t, 16>;  // port GID (RoCE: IPv6 / IPv4-mapped form)
using Mac = std::array<uint8_t, 6>;   // Ethernet address of the port's netdev

std::string formatGid(const Gid& gid);  // "fe80:0000:...:00ff" (8 groups of 4 hex digits)
std::string formatMac(const Mac& mac);  // "02:12:34:56:78:01"

// Bit-mask helpers for the flag enums below.
template <typename E>
struct EnableFlags : std::false_type {};
template <typename E>
requires EnableFlags<E>::value constexpr E operator|(E a, E b) {
    using U = std::underlying_type_t<E>;
    return static_cast<E>(static_cast<U>(a) | static_cast<U>(b));
}
template <typename E>
requires EnableFlags<E>::value constexpr E operator&(E a, E b) {
    using U = std::underlying_type_t<E>;
    return static_cast<E>(static_cast<U>(a) & static_cast<U>(b));
}
template <typename E>
requires EnableFlags<E>::value constexpr bool hasFlag(E set, E flag) {
    using U = std::underlying_type_t<E>;
    return (static_cast<U>(set) & static_cast<U>(flag)) == static_cast<U>(flag) && static_cast<U>(flag) != 0;
}

// Memory-region access rights (IBV_ACCESS_*). Local read is always allowed.
enum class Access : uint32_t {
    none = 0,
    localWrite = 1u << 0,
    remoteWrite = 1u << 1,  // requires localWrite, as in verbs
    remoteRead = 1u << 2,
};
template <>
struct EnableFlags<Access> : std::true_type {};

// Path MTU; the numeric values equal enum ibv_mtu (IBV_MTU_256 = 1 ...).
enum class PathMtu : uint8_t { invalid = 0, mtu256 = 1, mtu512 = 2, mtu1024 = 3, mtu2048 = 4, mtu4096 = 5 };
constexpr uint32_t mtuBytes(PathMtu mtu) {
    return mtu == PathMtu::invalid ? 0u : 128u << static_cast<uint32_t>(mtu);
}

enum class GidType : uint8_t { invalid = 0, ib, roceV1, roceV2 };
const char* gidTypeName(GidType type);

struct PortInfo {
    uint8_t portNum = 0;  // 1-based, as in verbs
    bool active = false;
    Gid gid{};  // the GID SMC-R would announce for this port
    uint8_t gidIndex = 0;
    GidType gidType = GidType::invalid;
    Mac mac{};
    PathMtu activeMtu = PathMtu::invalid;
    std::string netdev;  // verbs: the Ethernet device behind the port; sim: empty
};

// Capabilities (struct ibv_device_attr, the fields that matter here).
struct DeviceLimits {
    uint32_t maxQp = 0;
    uint32_t maxQpWr = 0;  // per send or receive queue
    uint32_t maxSge = 0;
    uint32_t maxInlineBytes = 0;
    uint32_t maxCq = 0;
    uint32_t maxCqe = 0;
    uint32_t maxMr = 0;
    uint64_t maxMrSizeBytes = 0;
};

struct DeviceInfo {
    std::string name;     // "sim-1a2b3c4d", "mlx5_0"
    std::string backend;  // "sim" or "verbs"
    std::vector<PortInfo> ports;
    DeviceLimits limits;
    std::string description;  // free text, e.g. the sim link model
};

// Who runs a device's work (Device::progressModel; fabric.h, "Waiting").
enum class ProgressModel : uint8_t {
    invalid = 0,
    hardware,    // verbs: the RNIC executes WRs by itself, a completion fires an armed CQ's channel
    ownerCalls,  // sim: WRs run only inside the owner's calls into the device, timed ones once due
};

// RNR NAKs (IBA 9.7.5.2.8) of a device's QPs (Device::rnrCounters).
struct RnrCounters {
    uint64_t naksSent = 0;      // as responder: SENDs that found no receive WQE
    uint64_t naksReceived = 0;  // as requester: RNR NAKs taken (retries + final)
};

// ---- Queue pairs ------------------------------------------------------------

// RC queue-pair states (IBV_QPS_*); SQD/SQE are not modelled.
enum class QpState : uint8_t { reset = 0, init, rtr, rts, error };
const char* qpStateName(QpState state);

// Which QpAttr fields a modify() call carries (IBV_QP_* mask bits).
enum class QpAttrMask : uint32_t {
    none = 0,
    state = 1u << 0,
    port = 1u << 1,         // + pkey index 0, implied
    accessFlags = 1u << 2,  // remote access allowed on this QP
    pathMtu = 1u << 3,
    address = 1u << 4,  // remote GID + MAC + hop limit (the address vector)
    remoteQpn = 1u << 5,
    rqPsn = 1u << 6,
    sqPsn = 1u << 7,
    minRnrTimer = 1u << 8,
    timeout = 1u << 9,
    retryCnt = 1u << 10,
    rnrRetry = 1u << 11,
    maxRdAtomic = 1u << 12,
    maxDestRdAtomic = 1u << 13,
};
template <>
struct EnableFlags<QpAttrMask> : std::true_type {};

// Masks that each RC transition requires, exactly as ibv_modify_qp(3) lists
// them. A modify() with a missing or extra attribute fails with
// invalidArgument and changes nothing, not even the state.
inline constexpr QpAttrMask kMaskResetToInit = QpAttrMask::state | QpAttrMask::port | QpAttrMask::accessFlags;
inline constexpr QpAttrMask kMaskInitToRtr = QpAttrMask::state | QpAttrMask::address | QpAttrMask::pathMtu |
                                             QpAttrMask::remoteQpn | QpAttrMask::rqPsn | QpAttrMask::maxDestRdAtomic |
                                             QpAttrMask::minRnrTimer;
inline constexpr QpAttrMask kMaskRtrToRts = QpAttrMask::state | QpAttrMask::sqPsn | QpAttrMask::timeout |
                                            QpAttrMask::retryCnt | QpAttrMask::rnrRetry | QpAttrMask::maxRdAtomic;

inline constexpr uint32_t kQpnMask = 0xffffff;  // QPNs and PSNs are 24 bit
inline constexpr uint32_t kPsnMask = 0xffffff;

// Everything a peer learns from SMC-R's CLC exchange (RFC 7609 3.3.2: GID,
// MAC, QPN, PSN, MTU) plus the local transport knobs SMC-R sets.
struct QpAttr {
    QpState state = QpState::reset;
    uint8_t port = 1;
    Access accessFlags = Access::none;  // remote rights on the QP (IBV_QP_ACCESS_FLAGS)
    PathMtu pathMtu = PathMtu::invalid;
    Gid remoteGid{};
    Mac remoteMac{};
    uint8_t hopLimit = 1;
    uint32_t remoteQpn = 0;   // 24 bit
    uint32_t rqPsn = 0;       // 24 bit: first PSN expected from the peer (= peer's sqPsn)
    uint32_t sqPsn = 0;       // 24 bit: first PSN this side sends
    uint8_t minRnrTimer = 0;  // IB code 0..31 (5 = 0.06 ms)
    uint8_t timeout = 0;      // local ACK timeout 4.096 us * 2^timeout; 0 = infinite
    uint8_t retryCnt = 0;     // 0..7, not infinite
    uint8_t rnrRetry = 0;     // 0..7, 7 = infinite
    uint8_t maxRdAtomic = 0;
    uint8_t maxDestRdAtomic = 0;
};

// Milliseconds of an RNR NAK timer code (IBA table 45; rxe rnrnak_usec).
double rnrTimerMs(uint8_t code);
// Local ACK timeout in microseconds (0 = infinite).
double ackTimeoutUs(uint8_t timeout);

struct QpCaps {
    uint32_t maxSendWr = 0;
    uint32_t maxRecvWr = 0;
    uint32_t maxSendSge = 0;
    uint32_t maxRecvSge = 0;
    uint32_t maxInlineBytes = 0;
};

// ---- Work requests ----------------------------------------------------------

inline constexpr uint32_t kMaxSge = 4;  // per work request in this interface

struct Sge {
    uint64_t addr = 0;  // local virtual address inside a region with lkey
    uint32_t length = 0;
    uint32_t lkey = 0;
};

enum class WrOpcode : uint8_t { invalid = 0, rdmaWrite, send };

enum class SendFlags : uint32_t {
    none = 0,
    signaled = 1u << 0,    // generate a completion on success (errors always complete)
    solicited = 1u << 1,   // SEND only: the Solicited Event bit (wakes SOLICITED-armed CQs)
    inlineData = 1u << 2,  // copy the payload at post time; lkeys are not checked
    fence = 1u << 3,
};
template <>
struct EnableFlags<SendFlags> : std::true_type {};

struct SendWr {
    uint64_t wrId = 0;
    WrOpcode opcode = WrOpcode::invalid;
    SendFlags flags = SendFlags::none;
    std::array<Sge, kMaxSge> sg{};
    uint32_t numSge = 0;
    uint64_t remoteAddr = 0;  // rdmaWrite: the peer's virtual address (MemoryRegion::address())
    uint32_t rkey = 0;        // rdmaWrite: the peer's MemoryRegion::rkey()
};

struct RecvWr {
    uint64_t wrId = 0;
    std::array<Sge, kMaxSge> sg{};
    uint32_t numSge = 0;
};

// ---- Completions ------------------------------------------------------------

// Mirrors enum ibv_wc_status (same order and values).
enum class WcStatus : uint8_t {
    success = 0,
    locLenErr,
    locQpOpErr,
    locEecOpErr,
    locProtErr,
    wrFlushErr,
    mwBindErr,
    badRespErr,
    locAccessErr,
    remInvReqErr,
    remAccessErr,
    remOpErr,
    retryExcErr,
    rnrRetryExcErr,
    locRddViolErr,
    remInvRdReqErr,
    remAbortErr,
    invEecnErr,
    invEecStateErr,
    fatalErr,
    respTimeoutErr,
    generalErr,
};
const char* wcStatusName(WcStatus status);

enum class WcOpcode : uint8_t { invalid = 0, send, rdmaWrite, recv };

enum class WcFlags : uint32_t {
    none = 0,
    withImm = 1u << 0,
    solicited = 1u << 1,  // sim only: the SEND carried the SE bit (verbs does not report it)
};
template <>
struct EnableFlags<WcFlags> : std::true_type {};

// For a non-success completion only wrId, status, qpNum and vendorErr are
// valid (ibv_poll_cq(3)).
struct WorkCompletion {
    uint64_t wrId = 0;
    WcStatus status = WcStatus::generalErr;
    WcOpcode opcode = WcOpcode::invalid;
    uint32_t byteLen = 0;
    uint32_t qpNum = 0;  // the local QP this completion belongs to
    uint32_t srcQp = 0;  // recv: the sending QP
    uint32_t immData = 0;
    WcFlags flags = WcFlags::none;
    uint32_t vendorErr = 0;
};

// Result of CompletionQueue::requestNotify (the kernel's
// IB_CQ_REPORT_MISSED_EVENTS contract).
enum class NotifyResult : uint8_t {
    invalid = 0,
    armed,         // nothing pending: safe to sleep on the channel
    missedEvents,  // completions may be queued already: poll again before sleeping
};

}  // namespace smcr::fabric
