// A protocol-analyser view of decoded messages: a title line and an ordered
// list of (field name, formatted value) pairs. The CLI, tests and the GUI all
// show messages through this one place, so field names agree everywhere.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <smcr/wire/cdc.h>
#include <smcr/wire/clc.h>
#include <smcr/wire/llc.h>

namespace smcr::wire {

struct Field {
    std::string name;   // snake_case, as in the kernel structs ("rmbe_alert_token")
    std::string value;  // formatted ("0x00001234", "3 (128 KiB)", "PEERNOSMC (0x03010000)")
    int depth = 0;      // nesting level for indentation (0 = message field)
};

struct Description {
    std::string title;  // "SMC-R CLC Accept (v1, 68 bytes)"
    std::vector<Field> fields;
};

Description describe(const ClcMessage& msg);
Description describe(const LlcMessage& msg);  // the v1 form
// The form a link group of that version sends: a v2 title and type read
// "CONFIRM_LINK_V2 (0x21, 44 bytes)".
Description describe(const LlcMessage& msg, LlcVersion version);
Description describe(const CdcMessage& msg);

// Renders a description as analyser text: the title, then "  name: value" lines.
std::string formatDescription(const Description& description);

// Formatting helpers shared with other views.
std::string hexBytes(const uint8_t* data, size_t size, char separator = ':');
std::string formatGid(const Gid& gid);  // IPv6-style groups
std::string formatMac(const Mac& mac);
std::string formatHex(uint64_t value, int digits);  // "0x" + zero-padded hex
std::string formatRmbeSize(uint8_t code);           // "3 (128 KiB)"
std::string formatIbMtu(IbMtu mtu);                 // "3 (1024)"
std::string formatDeclineReason(uint32_t code);     // "PEERNOSMC (0x03010000)"

}  // namespace smcr::wire
