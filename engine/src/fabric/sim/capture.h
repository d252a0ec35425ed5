// Writes the sim's SENDs and RDMA WRITEs as RoCEv2 frames (Ethernet, IPv4,
// UDP 4791, BTH, RETH for writes, ICRC left zero) to a pcap file so that
// Wireshark's infiniband dissector (and its SMC heuristics) decode them.
// Several processes may append to one file: each record is one write().
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include <smcr/fabric_types.h>
#include <smcr/result.h>

namespace smcr::fabric::sim {

struct CaptureEndpoint {
    Mac mac{};
    uint32_t ipv4 = 0;  // host order
    uint32_t qpn = 0;
};

class Capture {
public:
    static Result<std::unique_ptr<Capture>> open(const std::string& path);
    ~Capture();
    Capture(const Capture&) = delete;
    Capture& operator=(const Capture&) = delete;

    // Splits the message into MTU-sized packets (FIRST/MIDDLE/LAST or ONLY);
    // returns the number of PSNs used.
    uint32_t writeSend(const CaptureEndpoint& src, const CaptureEndpoint& dst, uint32_t psn, bool solicited,
                       std::span<const uint8_t> payload, uint32_t mtuBytes);
    uint32_t writeRdmaWrite(const CaptureEndpoint& src, const CaptureEndpoint& dst, uint32_t psn, uint64_t remoteAddr,
                            uint32_t rkey, std::span<const uint8_t> payload, uint32_t mtuBytes);
    const std::string& path() const { return m_path; }

private:
    Capture(int fd, std::string path) : m_fd(fd), m_path(std::move(path)) {}
    void writePacket(const CaptureEndpoint& src, const CaptureEndpoint& dst, uint8_t opcode, bool solicited,
                     uint32_t psn, const uint8_t* reth, std::span<const uint8_t> payload);
    int m_fd;
    std::string m_path;
};

// Packets a message of `bytes` needs at this MTU (at least 1).
uint32_t packetCount(uint64_t bytes, uint32_t mtuBytes);

}  // namespace smcr::fabric::sim
