#include "tcp_test_protocol.h"

namespace smclab::workloads::tcptest {

namespace {

constexpr uint32_t kHelloMagic = 0x544C4D53;   // "SMLT" little-endian
constexpr uint32_t kAckMagic = 0x414C4D53;     // "SMLA"
constexpr uint32_t kReportMagic = 0x524C4D53;  // "SMLR"

template <size_t N>
void put32(std::array<uint8_t, N>& out, size_t at, uint32_t v) {
    for (size_t i = 0; i < 4; ++i) out[at + i] = static_cast<uint8_t>(v >> (8 * i));
}
template <size_t N>
void put64(std::array<uint8_t, N>& out, size_t at, uint64_t v) {
    for (size_t i = 0; i < 8; ++i) out[at + i] = static_cast<uint8_t>(v >> (8 * i));
}
uint32_t get32(const uint8_t* in, size_t at) {
    uint32_t v = 0;
    for (size_t i = 0; i < 4; ++i) v |= static_cast<uint32_t>(in[at + i]) << (8 * i);
    return v;
}
uint64_t get64(const uint8_t* in, size_t at) {
    uint64_t v = 0;
    for (size_t i = 0; i < 8; ++i) v |= static_cast<uint64_t>(in[at + i]) << (8 * i);
    return v;
}

}  // namespace

std::array<uint8_t, kHelloBytes> encodeHello(const Hello& hello) {
    std::array<uint8_t, kHelloBytes> out{};
    put32(out, 0, kHelloMagic);
    out[4] = kVersion;
    out[5] = static_cast<uint8_t>(hello.test);
    put32(out, 8, hello.msgSize);
    put32(out, 12, hello.durationMs);
    put32(out, 16, hello.warmupMs);
    put32(out, 20, hello.flags);
    return out;
}

smcr::Result<Hello> decodeHello(const uint8_t* bytes, size_t len) {
    if (len != kHelloBytes) return smcr::fail(smcr::Errc::malformed, "hello: wrong length");
    if (get32(bytes, 0) != kHelloMagic) return smcr::fail(smcr::Errc::malformed, "hello: not an smclab tcp test");
    if (bytes[4] != kVersion) {
        return smcr::fail(smcr::Errc::protocolViolation,
                          "hello: version " + std::to_string(bytes[4]) + " not supported");
    }
    Hello h;
    h.test = static_cast<TestKind>(bytes[5]);
    h.msgSize = get32(bytes, 8);
    h.durationMs = get32(bytes, 12);
    h.warmupMs = get32(bytes, 16);
    h.flags = get32(bytes, 20);
    return h;
}

std::array<uint8_t, kAckBytes> encodeAck(AckStatus status) {
    std::array<uint8_t, kAckBytes> out{};
    put32(out, 0, kAckMagic);
    put32(out, 4, static_cast<uint32_t>(status));
    return out;
}

smcr::Result<AckStatus> decodeAck(const uint8_t* bytes, size_t len) {
    if (len != kAckBytes || get32(bytes, 0) != kAckMagic) {
        return smcr::fail(smcr::Errc::malformed, "ack: the peer is not an smclab tcp server");
    }
    return static_cast<AckStatus>(get32(bytes, 4));
}

std::array<uint8_t, kReportBytes> encodeReport(const Report& r) {
    std::array<uint8_t, kReportBytes> out{};
    put32(out, 0, kReportMagic);
    put32(out, 4, kVersion);
    put64(out, 8, r.bytes);
    put64(out, 16, r.messages);
    put64(out, 24, r.elapsedNs);
    put64(out, 32, r.cpuUserNs);
    put64(out, 40, r.cpuSystemNs);
    put64(out, 48, r.totalBytes);
    return out;
}

smcr::Result<Report> decodeReport(const uint8_t* bytes, size_t len) {
    if (len != kReportBytes || get32(bytes, 0) != kReportMagic) {
        return smcr::fail(smcr::Errc::malformed, "report: malformed server report");
    }
    Report r;
    r.bytes = get64(bytes, 8);
    r.messages = get64(bytes, 16);
    r.elapsedNs = get64(bytes, 24);
    r.cpuUserNs = get64(bytes, 32);
    r.cpuSystemNs = get64(bytes, 40);
    r.totalBytes = get64(bytes, 48);
    return r;
}

std::string ackStatusText(AckStatus status) {
    switch (status) {
        case AckStatus::accepted:
            return "accepted";
        case AckStatus::badVersion:
            return "the server does not speak this version";
        case AckStatus::badTest:
            return "the server does not know this test";
        case AckStatus::badSize:
            return "msg_size out of the server's range";
    }
    return "refused (status " + std::to_string(static_cast<uint32_t>(status)) + ")";
}

}  // namespace smclab::workloads::tcptest
