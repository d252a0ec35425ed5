// smclab decode: prints CLC, LLC and CDC messages field by field, like a
// protocol analyser. Bytes come as hex on the command line or on stdin;
// whitespace, colons and 0x prefixes are ignored. Several messages in a row
// are decoded one after the other (CLC by its length field, LLC/CDC by 44).
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <iostream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include <smcr/wire/cdc.h>
#include <smcr/wire/clc.h>
#include <smcr/wire/describe.h>
#include <smcr/wire/llc.h>

#include "args.h"
#include "commands.h"

namespace smclab::cli {

namespace {

enum class Kind { autoDetect, clc, llc, cdc };

void printUsage(FILE* out) {
    std::fprintf(out,
                 "usage: smclab decode [--kind clc|llc|cdc|auto] [HEX...]\n"
                 "\n"
                 "Decodes SMC-R CLC, LLC and CDC messages and prints every field.\n"
                 "HEX is read from the arguments, or from stdin when none are given;\n"
                 "whitespace, ':' and '0x' prefixes are ignored.\n"
                 "\n"
                 "  --kind K   clc, llc, cdc or auto (default): auto picks CLC by its\n"
                 "             eyecatcher, CDC by type 0xFE, else LLC\n"
                 "\n"
                 "Exit status: 0 decoded, 1 malformed input, 2 usage error.\n");
}

std::optional<std::vector<uint8_t>> parseHex(const std::string& text, std::string* error) {
    std::vector<uint8_t> bytes;
    int high = -1;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (std::isspace(static_cast<unsigned char>(c)) || c == ':' || c == '-' || c == ',') continue;
        if (c == '0' && i + 1 < text.size() && (text[i + 1] == 'x' || text[i + 1] == 'X') && high < 0) {
            ++i;
            continue;
        }
        const int value = std::isdigit(static_cast<unsigned char>(c)) ? c - '0'
                          : (c >= 'a' && c <= 'f')                    ? c - 'a' + 10
                          : (c >= 'A' && c <= 'F')                    ? c - 'A' + 10
                                                                      : -1;
        if (value < 0) {
            *error = std::string("invalid hex character '") + c + "'";
            return std::nullopt;
        }
        if (high < 0) {
            high = value;
        } else {
            bytes.push_back(static_cast<uint8_t>(high << 4 | value));
            high = -1;
        }
    }
    if (high >= 0) {
        *error = "odd number of hex digits";
        return std::nullopt;
    }
    return bytes;
}

Kind detect(std::span<const uint8_t> bytes) {
    if (bytes.size() >= 4) {
        const bool smcr =
            std::equal(smcr::wire::kEyecatcherSmcr.begin(), smcr::wire::kEyecatcherSmcr.end(), bytes.begin());
        const bool smcd =
            std::equal(smcr::wire::kEyecatcherSmcd.begin(), smcr::wire::kEyecatcherSmcd.end(), bytes.begin());
        if (smcr || smcd) return Kind::clc;
    }
    if (!bytes.empty() && bytes[0] == smcr::wire::kCdcType) return Kind::cdc;
    return Kind::llc;
}

// Size of the message at the start of `bytes`, as far as its header says;
// the whole rest when the header cannot tell (the decoder then reports why).
size_t messageSize(Kind kind, std::span<const uint8_t> bytes) {
    size_t size = bytes.size();
    if (kind == Kind::clc) {
        if (auto header = smcr::wire::peekClcHeader(bytes)) size = header->lengthBytes;
    } else if (kind == Kind::llc) {
        auto header = smcr::wire::peekLlcHeader(bytes);
        size = header && header->v2 ? header->lengthBytes : smcr::wire::kLlcMessageBytes;
    } else {
        size = smcr::wire::kCdcMessageBytes;
    }
    return std::min(size, bytes.size());
}

smcr::Result<smcr::wire::Description> decodeOne(Kind kind, std::span<const uint8_t> bytes) {
    switch (kind) {
        case Kind::clc: {
            auto msg = smcr::wire::decodeClc(bytes);
            if (!msg) return smcr::fail(msg.error());
            return smcr::wire::describe(*msg);
        }
        case Kind::llc: {
            auto msg = smcr::wire::decodeLlc(bytes);
            if (!msg) return smcr::fail(msg.error());
            const auto header = smcr::wire::peekLlcHeader(bytes);
            return smcr::wire::describe(*msg,
                                        header && header->v2 ? smcr::wire::LlcVersion::v2 : smcr::wire::LlcVersion::v1);
        }
        case Kind::cdc:
        case Kind::autoDetect:
            break;
    }
    auto msg = smcr::wire::decodeCdc(bytes);
    if (!msg) return smcr::fail(msg.error());
    return smcr::wire::describe(*msg);
}

}  // namespace

int runDecode(const Args& args) {
    ArgCursor cursor(args);
    Kind kind = Kind::autoDetect;
    std::string hexText;
    bool haveHex = false;
    while (!cursor.done()) {
        if (cursor.takeFlag("--help") || cursor.takeFlag("-h")) {
            printUsage(stdout);
            return kExitOk;
        }
        if (auto value = cursor.takeValue("--kind")) {
            if (*value == "clc") {
                kind = Kind::clc;
            } else if (*value == "llc") {
                kind = Kind::llc;
            } else if (*value == "cdc") {
                kind = Kind::cdc;
            } else if (*value == "auto") {
                kind = Kind::autoDetect;
            } else {
                std::fprintf(stderr, "smclab decode: --kind must be clc, llc, cdc or auto, not '%s'\n", value->c_str());
                return kExitUsage;
            }
            continue;
        }
        if (!cursor.error().empty()) break;
        const std::string word = cursor.next();
        if (word.size() > 2 && word[0] == '-' && word[1] == '-') {
            std::fprintf(stderr, "smclab decode: unknown option '%s'\n", word.c_str());
            return kExitUsage;
        }
        hexText += word;
        hexText += ' ';
        haveHex = true;
    }
    if (!cursor.error().empty()) {
        std::fprintf(stderr, "smclab decode: %s\n", cursor.error().c_str());
        return kExitUsage;
    }
    if (!haveHex) hexText.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());

    std::string error;
    const auto bytes = parseHex(hexText, &error);
    if (!bytes) {
        std::fprintf(stderr, "smclab decode: %s\n", error.c_str());
        return kExitUsage;
    }
    if (bytes->empty()) {
        std::fprintf(stderr, "smclab decode: no bytes to decode\n");
        return kExitUsage;
    }

    std::span<const uint8_t> rest(*bytes);
    bool first = true;
    while (!rest.empty()) {
        const Kind thisKind = kind == Kind::autoDetect ? detect(rest) : kind;
        const size_t size = messageSize(thisKind, rest);
        auto description = decodeOne(thisKind, rest.first(size));
        if (!description) {
            std::fflush(stdout);
            std::fprintf(stderr, "smclab decode: %s\n", description.error().toString().c_str());
            return kExitFailure;
        }
        if (!first) std::printf("\n");
        std::fputs(smcr::wire::formatDescription(*description).c_str(), stdout);
        first = false;
        rest = rest.subspan(size);
    }
    return kExitOk;
}

}  // namespace smclab::cli
