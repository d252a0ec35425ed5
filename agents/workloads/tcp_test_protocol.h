// The small exchange that frames one tcp_bw / tcp_lat test on its data
// connection (one connection per test, like qperf's data socket; the
// control channel of smclab-agent never carries it):
//
//   client -> server  Hello  (32 bytes): magic "SMLT", version, test,
//                     msg_size, duration_ms, warmup_ms, flags
//   server -> client  Ack    (16 bytes): magic "SMLA", status (0 = accepted)
//   ... the test: tcp_bw streams msg_size messages client -> server;
//       tcp_lat ping-pongs msg_size messages (the server echoes) ...
//   client            shutdown(SHUT_WR) when its time is up
//   server -> client  Report (64 bytes) once it reads end-of-stream: the
//                     server's measured bytes, messages, window and CPU.
//
// Every field is little-endian and encoded byte by byte (no struct casts).
// The report travels against the test's data direction (tcp_bw) or after
// the last echo (tcp_lat), so it never mixes with test data.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include <smcr/result.h>

namespace smclab::workloads::tcptest {

enum class TestKind : uint8_t { invalid = 0, bandwidth = 1, latency = 2 };

inline constexpr uint8_t kVersion = 1;
inline constexpr size_t kHelloBytes = 32;
inline constexpr size_t kAckBytes = 16;
inline constexpr size_t kReportBytes = 64;
inline constexpr uint32_t kMaxMsgSize = 64u << 20;
inline constexpr uint32_t kFlagNoDelay = 1u << 0;
inline constexpr uint32_t kFlagVerify = 1u << 1;  // payload follows the verify pattern; the server checks it

enum class AckStatus : uint32_t { accepted = 0, badVersion = 1, badTest = 2, badSize = 3 };

struct Hello {
    TestKind test = TestKind::invalid;
    uint32_t msgSize = 0;
    uint32_t durationMs = 0;
    uint32_t warmupMs = 0;
    uint32_t flags = 0;
};

struct Report {
    uint64_t bytes = 0;      // bytes received (bw) or echoed (lat) in the measured window
    uint64_t messages = 0;   // whole messages in it
    uint64_t elapsedNs = 0;  // the server's measured window
    uint64_t cpuUserNs = 0;  // server process CPU in the window
    uint64_t cpuSystemNs = 0;
    uint64_t totalBytes = 0;  // including the warm-up
};

std::array<uint8_t, kHelloBytes> encodeHello(const Hello& hello);
smcr::Result<Hello> decodeHello(const uint8_t* bytes, size_t len);
std::array<uint8_t, kAckBytes> encodeAck(AckStatus status);
smcr::Result<AckStatus> decodeAck(const uint8_t* bytes, size_t len);
std::array<uint8_t, kReportBytes> encodeReport(const Report& report);
smcr::Result<Report> decodeReport(const uint8_t* bytes, size_t len);
std::string ackStatusText(AckStatus status);

}  // namespace smclab::workloads::tcptest
