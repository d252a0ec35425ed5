// The control protocol's version. A controller compares the major number it
// speaks with the one in the agent's `hello`; a minor bump only adds optional
// fields or message types (see PROTOCOL.md, "Versioning" and "Changelog").
#pragma once

namespace smclab::protocol {

inline constexpr const char* kProtocolVersion = "1.0";
inline constexpr int kProtocolMajor = 1;
inline constexpr int kProtocolMinor = 0;

}  // namespace smclab::protocol
