// Type dispatch for CLC messages.
#include <string>

#include "clc_frame.h"

namespace smcr::wire {

const char* clcTypeName(ClcType type) {
    switch (type) {
        case ClcType::invalid:
            return "invalid";
        case ClcType::proposal:
            return "Proposal";
        case ClcType::accept:
            return "Accept";
        case ClcType::confirm:
            return "Confirm";
        case ClcType::decline:
            return "Decline";
    }
    return "unknown";
}

Result<ClcMessage> decodeClc(std::span<const uint8_t> bytes) {
    auto header = peekClcHeader(bytes);
    if (!header) return fail(header.error());
    switch (header->type) {
        case ClcType::proposal: {
            auto msg = decodeClcProposal(bytes);
            if (!msg) return fail(msg.error());
            return ClcMessage{std::move(msg).value()};
        }
        case ClcType::accept:
        case ClcType::confirm: {
            auto msg = decodeClcAcceptConfirm(bytes);
            if (!msg) return fail(msg.error());
            return ClcMessage{std::move(msg).value()};
        }
        case ClcType::decline: {
            auto msg = decodeClcDecline(bytes);
            if (!msg) return fail(msg.error());
            return ClcMessage{std::move(msg).value()};
        }
        case ClcType::invalid:
            break;
    }
    return fail(Errc::malformed, "clc.header.type: unknown CLC type");
}

std::vector<uint8_t> encodeClc(const ClcMessage& msg) {
    return std::visit([](const auto& m) { return encode(m); }, msg);
}

ClcType clcTypeOf(const ClcMessage& msg) {
    if (const auto* ac = std::get_if<ClcAcceptConfirm>(&msg)) return ac->type;
    if (std::holds_alternative<ClcProposal>(msg)) return ClcType::proposal;
    return ClcType::decline;
}

}  // namespace smcr::wire
