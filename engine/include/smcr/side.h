// Which end: of a connection's handshake, of a workload, of a run stored in
// the results database. One enum for the whole tree, so that a side read off
// the control protocol is the side a workload runs and the side its counters
// are stored under, with no conversion between look-alike types. Zero is
// invalid, as for every enum of the tree.
#pragma once

#include <cstdint>
#include <string_view>

namespace smcr {

enum class Side : uint8_t { invalid = 0, client, server };

// "client", "server"; "invalid" for anything else.
constexpr const char* sideName(Side side) {
    switch (side) {
        case Side::client:
            return "client";
        case Side::server:
            return "server";
        case Side::invalid:
            break;
    }
    return "invalid";
}

// "client" or "server", else Side::invalid.
constexpr Side sideFromName(std::string_view name) {
    if (name == "client") return Side::client;
    if (name == "server") return Side::server;
    return Side::invalid;
}

}  // namespace smcr
