// LLC (link layer control) messages: 44-byte RoCE SENDs that manage links,
// rkeys and liveness within a link group. Layouts: RFC 7609 section 4.5,
// smc-protocol.md section 2. Common header: byte 0 type, byte 1 length (44),
// byte 2 reserved (ADD_LINK: reject reason in the low nibble), byte 3 flags.
// A link group that SMC-Rv2 set up sends the v2 forms (type | 0x20, a
// 16-bit length at bytes 1-2): the same bodies, plus an extension behind
// byte 44 on the ADD_LINK request. The kernel fills that length in host
// order, so x86 peers send it little-endian (seen in captures of Linux 6.12
// over rxe: CONFIRM_LINK_V2 starts 21 2c 00 03); this codec reads and
// writes it that way. REQ_ADD_LINK_V2 is recognised and refused with
// Errc::notSupported.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <variant>
#include <vector>

#include <smcr/result.h>
#include <smcr/wire/basic_types.h>

namespace smcr::wire {

enum class LlcType : uint8_t {
    invalid = 0,
    confirmLink = 0x01,
    addLink = 0x02,
    addLinkCont = 0x03,
    deleteLink = 0x04,
    confirmRkey = 0x06,
    testLink = 0x07,
    confirmRkeyCont = 0x08,
    deleteRkey = 0x09,
    // EXPERIMENTAL, not in the published protocol: RQ credits RFC (seed 004).
    announceCredits = 0x0A,
    // SMC-R v2 (16-bit length at bytes 1-2): recognised, not decoded.
    confirmLinkV2 = 0x21,
    addLinkV2 = 0x22,
    deleteLinkV2 = 0x24,
    reqAddLinkV2 = 0x25,
    confirmRkeyV2 = 0x26,
    testLinkV2 = 0x27,
    deleteRkeyV2 = 0x29,
    cdc = 0xFE,  // not LLC: the CDC message shares the SEND channel
};
// Kernel-style names: "CONFIRM_LINK", "ADD_LINK_V2", ...; nullptr when unknown.
const char* llcTypeName(uint8_t type);

inline constexpr uint8_t kLlcFlagResponse = 0x80;
inline constexpr uint8_t kLlcFlagAddLinkRejected = 0x40;
inline constexpr uint8_t kLlcFlagDeleteLinkAll = 0x40;
inline constexpr uint8_t kLlcFlagDeleteLinkOrderly = 0x20;
inline constexpr uint8_t kLlcFlagConfirmRkeyNegative = 0x20;
inline constexpr uint8_t kLlcFlagConfirmRkeyRetry = 0x10;
inline constexpr uint8_t kLlcFlagNoRmbeEyecatcher = 0x03;  // CONFIRM_LINK; Linux always sets it

// DELETE_LINK reason codes (byte 5), the kernel's SMC_LLC_DEL_* values. The
// message's reason field stays a plain uint32_t: a peer may send any value,
// and an enum with a fixed underlying type carries it unchanged.
enum class DeleteLinkReason : uint32_t {
    invalid = 0,
    lostPath = 0x00010000,           // LOST_PATH
    operatorTerm = 0x00020000,       // OP_INIT_TERM
    programTerm = 0x00030000,        // PROG_INIT_TERM
    protocolViolation = 0x00040000,  // PROT_VIOL
    asymNotNeeded = 0x00050000,      // NO_ASYM_NEEDED
    unknownLink = 0x00100000,        // NOLNK: the link number is not known
    unknownLinkGroup = 0x00200000,   // NOLGR: the link group is not known
};
// Name of a DELETE_LINK reason ("LOST_PATH", ...), nullptr when unknown.
const char* deleteLinkReasonName(uint32_t reason);

// ADD_LINK reject reason (header byte 2 low nibble): 1 = no alternate path.
inline constexpr uint8_t kAddLinkRejectNoAltPath = 1;

// Which form a link group's LLC messages take: v1 (44 bytes, 8-bit length)
// or v2 (type | 0x20, 16-bit length, 44 to 8192 bytes).
enum class LlcVersion : uint8_t { v1 = 1, v2 = 2 };
// The kernel's v2 receive buffer (SMC_WR_BUF_V2_SIZE): the longest v2 message.
inline constexpr size_t kLlcV2MaxBytes = 8192;
// Bytes of the v2 ADD_LINK extension before its rkey entries, and per entry.
inline constexpr size_t kLlcAddLinkV2ExtFixedBytes = 28;
inline constexpr size_t kLlcAddLinkV2RkeyBytes = 16;

struct LlcConfirmLink {  // 0x01
    bool response = false;
    bool noRmbeEyecatcher = true;  // flags 0x03
    Mac senderMac{};               // 4
    Gid senderGid{};               // 10
    uint32_t qpn = 0;              // 26, 24 bits
    uint8_t linkNumber = 0;        // 29
    uint32_t linkUid = 0;          // 30
    uint8_t maxLinks = 0;          // 34 (Linux 2)
    uint8_t maxConns = 0;          // 35 (v2.1)
    bool operator==(const LlcConfirmLink&) const = default;
};

struct RkeyPair {
    uint32_t rkeyCurrent = 0;  // rkey of the RMB on the link carrying the message
    uint32_t rkeyNew = 0;      // rkey of the same RMB on the new link
    uint64_t vaddrNew = 0;
    bool operator==(const RkeyPair&) const = default;
};

// What a v2 ADD_LINK request carries behind byte 44: instead of the
// ADD_LINK_CONT messages of v1, every RMB's rkey on the new link at once.
struct LlcAddLinkV2Ext {
    bool direct = false;          // +0 bit 7: the peer is on the same subnet (no gateway)
    Gid clientTargetGid{};        // +2: the GID the client should use for the new link
    std::vector<RkeyPair> rkeys;  // count at +26 (16 bits, little-endian like the length), entries from +28
    bool operator==(const LlcAddLinkV2Ext&) const = default;
};

struct LlcAddLink {  // 0x02
    bool response = false;
    bool rejected = false;         // flags 0x40
    uint8_t rejectReason = 0;      // header byte 2 low nibble (v1 only: byte 2 is part of the v2 length)
    Mac senderMac{};               // 4
    Gid senderGid{};               // 12
    uint32_t qpn = 0;              // 28, 24 bits
    uint8_t linkNumber = 0;        // 31
    IbMtu qpMtu = IbMtu::invalid;  // 32 low nibble
    uint32_t initialPsn = 0;       // 33, 24 bits
    // 36: EXPERIMENTAL (seed 004) receive credits of the new link; reserved (zero) otherwise.
    uint8_t initCredits = 0;
    std::optional<LlcAddLinkV2Ext> v2Ext;  // v2 request only; the v1 form has none
    bool operator==(const LlcAddLink&) const = default;
};

struct LlcAddLinkCont {  // 0x03
    bool response = false;
    uint8_t linkNumber = 0;           // 4
    uint8_t numRkeys = 0;             // 5: rkeys remaining
    std::array<RkeyPair, 2> rkeys{};  // 8 and 24
    bool operator==(const LlcAddLinkCont&) const = default;
};

struct LlcDeleteLink {  // 0x04
    bool response = false;
    bool allLinks = false;   // flags 0x40: the whole link group
    bool orderly = false;    // flags 0x20
    uint8_t linkNumber = 0;  // 4
    uint32_t reason = 0;     // 5
    bool operator==(const LlcDeleteLink&) const = default;
};

struct LinkRkey {  // one 13-byte rtoken entry: link id (or count), rkey, vaddr
    uint8_t linkId = 0;
    uint32_t rkey = 0;
    uint64_t vaddr = 0;
    bool operator==(const LinkRkey&) const = default;
};

struct LlcConfirmRkey {  // 0x06
    bool response = false;
    bool negative = false;  // flags 0x20
    bool retry = false;     // flags 0x10
    // Entry 0 at 4 describes the link carrying the message; its linkId byte
    // holds the number of further entries. Entries 1-2 at 17 and 30.
    std::array<LinkRkey, 3> entries{};
    bool operator==(const LlcConfirmRkey&) const = default;
};

struct LlcConfirmRkeyCont {  // 0x08, defined by RFC 7609, unused by Linux
    bool response = false;
    bool negative = false;
    bool retry = false;
    uint8_t numRkeys = 0;               // 4
    std::array<LinkRkey, 3> entries{};  // 5, 18, 31
    bool operator==(const LlcConfirmRkeyCont&) const = default;
};

struct LlcTestLink {  // 0x07
    bool response = false;
    std::array<uint8_t, 16> userData{};  // 4, echoed in the response
    bool operator==(const LlcTestLink&) const = default;
};

struct LlcDeleteRkey {  // 0x09
    bool response = false;
    uint8_t numRkeys = 0;             // 4, <= 8
    uint8_t errorMask = 0;            // 5, response: bit 7-i = entry i failed (v2: count of invalid rkeys)
    std::array<uint32_t, 8> rkeys{};  // 8
    bool operator==(const LlcDeleteRkey&) const = default;
};

// EXPERIMENTAL (RQ credits RFC, seed 004; never merged upstream): grants the
// peer `credits` more receive WQEs on this link. Only sent when both sides
// announced init credits in CLC Accept/Confirm byte 51.
struct LlcAnnounceCredits {  // 0x0A
    bool response = false;
    uint8_t credits = 0;  // 4
    bool operator==(const LlcAnnounceCredits&) const = default;
};

using LlcMessage = std::variant<LlcConfirmLink, LlcAddLink, LlcAddLinkCont, LlcDeleteLink, LlcConfirmRkey,
                                LlcConfirmRkeyCont, LlcTestLink, LlcDeleteRkey, LlcAnnounceCredits>;

using LlcBytes = std::array<uint8_t, kLlcMessageBytes>;

// Header fields of any LLC message, v1 or v2.
struct LlcHeader {
    uint8_t type = 0;
    uint16_t lengthBytes = 0;  // v1: byte 1; v2: bytes 1-2, little-endian (the x86 kernel's host order)
    uint8_t flags = 0;
    bool v2 = false;
};
Result<LlcHeader> peekLlcHeader(std::span<const uint8_t> bytes);

LlcBytes encode(const LlcConfirmLink& msg);
LlcBytes encode(const LlcAddLink& msg);
LlcBytes encode(const LlcAddLinkCont& msg);
LlcBytes encode(const LlcDeleteLink& msg);
LlcBytes encode(const LlcConfirmRkey& msg);
LlcBytes encode(const LlcConfirmRkeyCont& msg);
LlcBytes encode(const LlcTestLink& msg);
LlcBytes encode(const LlcDeleteRkey& msg);
LlcBytes encode(const LlcAnnounceCredits& msg);
LlcBytes encodeLlc(const LlcMessage& msg);
// The v2 form: 44 bytes, or more for an ADD_LINK with its v2 extension.
// Messages without a v2 form (ADD_LINK_CONT, CONFIRM_RKEY_CONT and the
// experimental ANNOUNCE_CREDITS) come out in their v1 form.
std::vector<uint8_t> encodeLlcV2(const LlcMessage& msg);
std::vector<uint8_t> encodeLlc(const LlcMessage& msg, LlcVersion version);
// The v2 form of a 44-byte v1 message (the type and length rewritten); one
// without a v2 form comes back as it was.
LlcBytes asLlcV2(const LlcBytes& v1);

// Dispatches on byte 0. A v1 type takes exactly 44 bytes (one v1 SEND); a
// v2 type takes exactly its length field's bytes (44..8192).
Result<LlcMessage> decodeLlc(std::span<const uint8_t> bytes);

LlcType llcTypeOf(const LlcMessage& msg);

}  // namespace smcr::wire
