// Value formatting for the analyser view (describe.h).
#include <cstdio>
#include <string>

#include <arpa/inet.h>

#include <smcr/wire/decline_reasons.h>
#include <smcr/wire/describe.h>

namespace smcr::wire {

std::string hexBytes(const uint8_t* data, size_t size, char separator) {
    static const char* digits = "0123456789abcdef";
    std::string text;
    text.reserve(size * 3);
    for (size_t i = 0; i < size; ++i) {
        if (i > 0 && separator != '\0') text += separator;
        text += digits[data[i] >> 4];
        text += digits[data[i] & 0x0F];
    }
    return text;
}

std::string formatGid(const Gid& gid) {
    // A GID is an IPv6 address (RoCEv2: IPv4-mapped), shown the same way.
    char text[INET6_ADDRSTRLEN] = {};
    if (inet_ntop(AF_INET6, gid.data(), text, sizeof(text)) == nullptr) return hexBytes(gid.data(), gid.size(), ':');
    return text;
}

std::string formatMac(const Mac& mac) {
    return hexBytes(mac.data(), mac.size(), ':');
}

std::string formatHex(uint64_t value, int digits) {
    static const char* hex = "0123456789abcdef";
    if (digits < 1) digits = 1;
    if (digits > 16) digits = 16;
    std::string text = "0x";
    for (int i = digits - 1; i >= 0; --i) text += hex[(value >> (4 * i)) & 0xF];
    return text;
}

std::string formatRmbeSize(uint8_t code) {
    const uint32_t bytes = rmbeCodeToSize(code);
    if (code > kRmbeSizeCodeMaxSmcr || bytes == 0) return std::to_string(code) + " (reserved)";
    return std::to_string(code) + " (" + std::to_string(bytes / 1024) + " KiB)";
}

std::string formatIbMtu(IbMtu mtu) {
    const uint32_t bytes = ibMtuBytes(mtu);
    const auto code = static_cast<unsigned>(mtu);
    if (bytes == 0) return std::to_string(code) + " (invalid)";
    return std::to_string(code) + " (" + std::to_string(bytes) + ")";
}

std::string formatDeclineReason(uint32_t code) {
    const char* name = declineReasonName(code);
    return std::string(name != nullptr ? name : "unknown") + " (" + formatHex(code, 8) + ")";
}

std::string formatDescription(const Description& description) {
    std::string text = description.title + "\n";
    for (const Field& field : description.fields) {
        text.append(2 + 2 * static_cast<size_t>(field.depth), ' ');
        text += field.name;
        if (!field.value.empty()) {
            text += ": ";
            text += field.value;
        }
        text += '\n';
    }
    return text;
}

}  // namespace smcr::wire
