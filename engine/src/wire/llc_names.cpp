#include <smcr/wire/llc.h>

namespace smcr::wire {

const char* llcTypeName(uint8_t type) {
    switch (type) {
        case 0x01:
            return "CONFIRM_LINK";
        case 0x02:
            return "ADD_LINK";
        case 0x03:
            return "ADD_LINK_CONT";
        case 0x04:
            return "DELETE_LINK";
        case 0x06:
            return "CONFIRM_RKEY";
        case 0x07:
            return "TEST_LINK";
        case 0x08:
            return "CONFIRM_RKEY_CONT";
        case 0x09:
            return "DELETE_RKEY";
        case 0x0A:
            return "ANNOUNCE_CREDITS";
        case 0x21:
            return "CONFIRM_LINK_V2";
        case 0x22:
            return "ADD_LINK_V2";
        case 0x24:
            return "DELETE_LINK_V2";
        case 0x25:
            return "REQ_ADD_LINK_V2";
        case 0x26:
            return "CONFIRM_RKEY_V2";
        case 0x27:
            return "TEST_LINK_V2";
        case 0x29:
            return "DELETE_RKEY_V2";
        case 0xFE:
            return "CDC";
        default:
            return nullptr;
    }
}

namespace {

struct DeleteLinkReasonName {
    DeleteLinkReason reason;
    const char* name;
};
constexpr DeleteLinkReasonName kDeleteLinkReasonNames[] = {
    {DeleteLinkReason::lostPath, "LOST_PATH"},
    {DeleteLinkReason::operatorTerm, "OPERATOR_TERM"},
    {DeleteLinkReason::programTerm, "PROGRAM_TERM"},
    {DeleteLinkReason::protocolViolation, "PROTOCOL_VIOLATION"},
    {DeleteLinkReason::asymNotNeeded, "ASYM_NOT_NEEDED"},
    {DeleteLinkReason::unknownLink, "UNKNOWN_LINK"},
    {DeleteLinkReason::unknownLinkGroup, "UNKNOWN_LGR"},
};

}  // namespace

const char* deleteLinkReasonName(uint32_t reason) {
    for (const DeleteLinkReasonName& n : kDeleteLinkReasonNames) {
        if (static_cast<uint32_t>(n.reason) == reason) return n.name;
    }
    return nullptr;
}

}  // namespace smcr::wire
