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

const char* deleteLinkReasonName(uint32_t reason) {
    switch (static_cast<DeleteLinkReason>(reason)) {
        case DeleteLinkReason::lostPath:
            return "LOST_PATH";
        case DeleteLinkReason::operatorTerm:
            return "OPERATOR_TERM";
        case DeleteLinkReason::programTerm:
            return "PROGRAM_TERM";
        case DeleteLinkReason::protocolViolation:
            return "PROTOCOL_VIOLATION";
        case DeleteLinkReason::asymNotNeeded:
            return "ASYM_NOT_NEEDED";
        case DeleteLinkReason::unknownLink:
            return "UNKNOWN_LINK";
        case DeleteLinkReason::unknownLinkGroup:
            return "UNKNOWN_LGR";
        case DeleteLinkReason::invalid:
            break;
    }
    return nullptr;
}

}  // namespace smcr::wire
