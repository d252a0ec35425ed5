// CLC (connection layer control) messages, exchanged over the TCP connection
// before any RDMA traffic: Proposal, Accept, Confirm, Decline.
// Byte layouts: RFC 7609 section 4.3, IBM SMC v2 spec, smc-protocol.md
// sections 1.2-1.5. Plain value structs; encode() builds the bytes,
// decode*() validates them (every error is Errc::malformed naming the field,
// or Errc::notSupported for well-formed SMC-D Accept/Confirm).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <variant>
#include <vector>

#include <smcr/result.h>
#include <smcr/wire/basic_types.h>

namespace smcr::wire {

enum class ClcType : uint8_t { invalid = 0, proposal = 1, accept = 2, confirm = 3, decline = 4 };
const char* clcTypeName(ClcType type);

inline constexpr size_t kClcHeaderBytes = 8;
inline constexpr size_t kClcTrailerBytes = 4;
inline constexpr size_t kClcProposalV1Ipv4Bytes = 92;  // Linux v1-only IPv4 Proposal
inline constexpr size_t kClcAcceptConfirmV1Bytes = 68;
inline constexpr size_t kClcAcceptConfirmV2MinBytes = 108;
inline constexpr size_t kClcFirstContactExtBytes = 52;
inline constexpr size_t kClcDeclineV1Bytes = 28;
inline constexpr size_t kClcDeclineV2Bytes = 44;
// Kernel limit for one CLC message (SMC_CLC_RECV_BUF_LEN is smaller; this is a sanity cap).
inline constexpr size_t kClcMaxMessageBytes = 1024;
inline constexpr size_t kClcMaxUeids = 8;
inline constexpr size_t kClcMaxIpv6Prefixes = 8;
inline constexpr size_t kClcMaxIsmV2Gids = 8;
inline constexpr size_t kClcMaxGidListEntries = 2;

// The 8-byte header, as peeked by a TCP reader before it reads the rest.
struct ClcHeader {
    Eyecatcher eyecatcher = Eyecatcher::smcr;
    ClcType type = ClcType::invalid;
    uint16_t lengthBytes = 0;  // whole message incl. header and trailer
    uint8_t version = 0;       // byte 7 [7:4]
    uint8_t typeV2 = 0;        // byte 7 [3:2]; bit 1 of it (wire bit 3) = first contact / out of sync
    uint8_t typeV1 = 0;        // byte 7 [1:0]
    bool operator==(const ClcHeader&) const = default;
};
// Given >= 8 bytes: checks eyecatcher, type 1..4, length >= 12 and <= kClcMaxMessageBytes
// and version != 0, so a reader knows how many bytes to read next.
Result<ClcHeader> peekClcHeader(std::span<const uint8_t> bytes);

// ---- Proposal (client -> server), smc-protocol.md 1.3 ----------------------

// Offsets 40..79: SMC-D v1 info and the v2 anchors. Present in every v2
// Proposal and in v1 Proposals whose IP-area offset is >= 40.
struct ClcProposalSmcdArea {
    uint64_t ismGid = 0;                     // 40
    uint16_t ismChid = 0;                    // 48
    uint16_t v2ExtOffset = 0;                // 50, counted from offset 52; raised to the minimum on encode
    std::array<uint8_t, 3> vendorOui{};      // 52
    std::array<uint8_t, 5> vendorOptions{};  // 55
    bool operator==(const ClcProposalSmcdArea&) const = default;
};

struct Ipv6Prefix {
    std::array<uint8_t, 16> prefix{};
    uint8_t prefixLength = 0;
    bool operator==(const Ipv6Prefix&) const = default;
};

// At 40 + ipAreaOffset, present iff typeV1 != none.
struct ClcProposalIpPrefix {
    uint32_t ipv4Subnet = 0;  // address AND mask, host order of the value (wire big-endian)
    uint8_t ipv4PrefixLength = 0;
    std::vector<Ipv6Prefix> ipv6Prefixes;  // <= 8, 17 bytes each on the wire
    bool operator==(const ClcProposalIpPrefix&) const = default;
};

// At 52 + smcdArea.v2ExtOffset, present iff version >= 2 and typeV2 != none.
struct ClcProposalV2Ext {
    uint8_t release = 0;           // +3 [7:4]: 0 = v2.0, 1 = v2.1
    bool seidIndicated = false;    // +3 bit 0
    uint16_t smcdV2ExtOffset = 0;  // +6, counted from +8; raised to the minimum on encode
    Gid roceV2Gid{};               // +8, IPv4-mapped
    uint8_t maxConns = 0;          // +24 (v2.1)
    uint8_t maxLinks = 0;          // +25 (v2.1)
    uint16_t featureMask = 0;      // +26
    std::vector<Eid> ueids;        // +40, count at +0 (<= 8)
    bool operator==(const ClcProposalV2Ext&) const = default;
};

struct IsmGidChid {
    uint64_t gid = 0;
    uint16_t chid = 0;
    bool operator==(const IsmGidChid&) const = default;
};

// SMC-D v2 extension (only when typeV2 offers D): SEID, reserved(16), ISM GIDs.
struct ClcProposalSmcdV2Ext {
    Eid seid{};
    std::vector<IsmGidChid> ismGids;  // count in the v2 extension at +1 (<= 8)
    bool operator==(const ClcProposalSmcdV2Ext&) const = default;
};

struct ClcProposal {
    Eyecatcher eyecatcher = Eyecatcher::smcr;
    uint8_t version = 2;
    SmcType typeV1 = SmcType::r;
    SmcType typeV2 = SmcType::none;
    PeerId peerId{};  // 8
    Gid gid{};        // 16, the v1 RoCE GID
    Mac mac{};        // 32
    // 38: bytes from offset 40 to the IP prefix area. Linux sends 40 when
    // typeV1 != none, else 0. Values below the minimum (40 when smcdArea is
    // present) are raised to it on encode.
    uint16_t ipAreaOffset = 40;
    std::optional<ClcProposalSmcdArea> smcdArea;
    std::optional<ClcProposalIpPrefix> ipPrefix;
    std::optional<ClcProposalV2Ext> v2Ext;
    std::optional<ClcProposalSmcdV2Ext> smcdV2Ext;
    bool operator==(const ClcProposal&) const = default;
};

// ---- Accept (server -> client) / Confirm (client -> server), SMC-R, 1.4 ----

// v2 first-contact extension at offset 104 (52 bytes).
struct ClcFirstContactExt {
    bool v2Direct = false;                   // +0 bit 7: same subnet, no gateway
    uint8_t osType = 0;                      // +1 [7:4]: 1 z/OS, 2 Linux, 3 AIX
    uint8_t release = 0;                     // +1 [3:0]
    Hostname hostname{};                     // +4, blank padded
    uint8_t maxConns = 0;                    // +36
    uint8_t maxLinks = 0;                    // +37
    uint16_t featureMask = 0;                // +38
    std::array<uint8_t, 4> vendorOptions{};  // +40
    bool operator==(const ClcFirstContactExt&) const = default;
};

struct ClcAcceptConfirm {
    ClcType type = ClcType::accept;  // accept or confirm
    uint8_t version = 1;
    bool firstContact = false;     // byte 7 bit 3
    PeerId peerId{};               // 8
    Gid gid{};                     // 16
    Mac mac{};                     // 32
    uint32_t qpn = 0;              // 38, 24 bits
    uint32_t rmbRkey = 0;          // 41
    uint8_t rmbeIndex = 1;         // 45 (Linux: always 1)
    uint32_t rmbeAlertToken = 0;   // 46
    uint8_t rmbeSizeCode = 0;      // 50 [7:4], <= 5 for SMC-R
    IbMtu qpMtu = IbMtu::mtu1024;  // 50 [3:0]
    // 51: EXPERIMENTAL (RQ credits RFC, seed 004): receive credits the
    // sender grants; reserved (zero) in the published protocol. Zero unless
    // credits are negotiated.
    uint8_t initCredits = 0;
    uint64_t rmbVaddr = 0;    // 52
    uint32_t initialPsn = 0;  // 61, 24 bits
    // v2 only (version >= 2):
    Eid eid{};                                          // 64, negotiated EID
    std::optional<ClcFirstContactExt> firstContactExt;  // 104
    std::optional<std::vector<Gid>> gidList;            // 156: count, rsvd(3), GIDs (<= 2); first-contact Confirm
    bool operator==(const ClcAcceptConfirm&) const = default;
};

// ---- Decline, 1.5 -----------------------------------------------------------

struct ClcDecline {
    Eyecatcher eyecatcher = Eyecatcher::smcr;     // Linux always sends SMCR
    uint8_t version = 1;                          // 1 -> 28 bytes, >= 2 -> 44 bytes
    bool outOfSync = false;                       // byte 7 bit 3 (with SYNCERR: peer drops the link group)
    PeerId peerId{};                              // 8
    uint32_t reasonCode = 0;                      // 16, see decline_reasons.h
    uint8_t osType = 0;                           // 20 [7:4] (v2)
    std::array<uint32_t, 4> additionalReasons{};  // 24, v2 only
    bool operator==(const ClcDecline&) const = default;
};

using ClcMessage = std::variant<ClcProposal, ClcAcceptConfirm, ClcDecline>;

// Encoders. Values wider than their wire field are masked (24-bit QPN/PSN,
// 4-bit nibbles); lists longer than the wire allows are cut to the maximum.
std::vector<uint8_t> encode(const ClcProposal& msg);
std::vector<uint8_t> encode(const ClcAcceptConfirm& msg);
std::vector<uint8_t> encode(const ClcDecline& msg);
std::vector<uint8_t> encodeClc(const ClcMessage& msg);

// Decoders take exactly one message (bytes.size() must equal the length field).
Result<ClcProposal> decodeClcProposal(std::span<const uint8_t> bytes);
Result<ClcAcceptConfirm> decodeClcAcceptConfirm(std::span<const uint8_t> bytes);
Result<ClcDecline> decodeClcDecline(std::span<const uint8_t> bytes);
// Dispatches on the header's type.
Result<ClcMessage> decodeClc(std::span<const uint8_t> bytes);

ClcType clcTypeOf(const ClcMessage& msg);

}  // namespace smcr::wire
