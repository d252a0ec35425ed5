#include "capture.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <vector>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/byte_writer.h"

namespace smcr::fabric::sim {

namespace {

// RC opcodes (IBA 9.2, table 38).
constexpr uint8_t kSendFirst = 0x00;
constexpr uint8_t kSendMiddle = 0x01;
constexpr uint8_t kSendLast = 0x02;
constexpr uint8_t kSendOnly = 0x04;
constexpr uint8_t kWriteFirst = 0x06;
constexpr uint8_t kWriteMiddle = 0x07;
constexpr uint8_t kWriteLast = 0x08;
constexpr uint8_t kWriteOnly = 0x0a;
constexpr uint16_t kRoceV2Port = 4791;

constexpr size_t kRecordHeaderBytes = 16;  // pcap per-packet header
constexpr size_t kRethBytes = 16;

// The pcap headers are little-endian (the magic says so to readers); the
// frame itself is network order, through ByteWriter like every wire format.
void putLe32(std::vector<uint8_t>& out, uint32_t v) {
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}
void putLe16(std::vector<uint8_t>& out, uint16_t v) {
    out.push_back(static_cast<uint8_t>(v));
    out.push_back(static_cast<uint8_t>(v >> 8));
}

uint16_t ipChecksum(const uint8_t* data, size_t len) {
    uint32_t sum = 0;
    for (size_t i = 0; i + 1 < len; i += 2) sum += static_cast<uint32_t>(data[i] << 8 | data[i + 1]);
    while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
    return static_cast<uint16_t>(~sum);
}

}  // namespace

uint32_t packetCount(uint64_t bytes, uint32_t mtuBytes) {
    if (bytes == 0 || mtuBytes == 0) return 1;
    return static_cast<uint32_t>((bytes + mtuBytes - 1) / mtuBytes);
}

Result<std::unique_ptr<Capture>> Capture::open(const std::string& path) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) return fail(makeSystemError("open capture " + path, errno));
    // Two processes may start the same file: the first writes the header.
    flock(fd, LOCK_EX);
    struct stat st {};
    if (fstat(fd, &st) == 0 && st.st_size == 0) {
        std::vector<uint8_t> header;
        putLe32(header, 0xa1b23c4d);  // nanosecond-resolution pcap
        putLe16(header, 2);
        putLe16(header, 4);
        putLe32(header, 0);
        putLe32(header, 0);
        putLe32(header, 65535);
        putLe32(header, 1);  // LINKTYPE_ETHERNET
        if (::write(fd, header.data(), header.size()) != static_cast<ssize_t>(header.size())) {
            const int err = errno;
            flock(fd, LOCK_UN);
            ::close(fd);
            return fail(makeSystemError("write capture header", err));
        }
    }
    flock(fd, LOCK_UN);
    return std::unique_ptr<Capture>(new Capture(fd, path));
}

Capture::~Capture() {
    ::close(m_fd);
}

void Capture::writePacket(const CaptureEndpoint& src, const CaptureEndpoint& dst, uint8_t opcode, bool solicited,
                          uint32_t psn, const uint8_t* reth, std::span<const uint8_t> payload) {
    const uint32_t pad = (4 - payload.size() % 4) % 4;
    const uint32_t ibBytes = 12 + (reth != nullptr ? 16 : 0) + static_cast<uint32_t>(payload.size()) + pad + 4;
    const uint32_t udpBytes = 8 + ibBytes;
    const uint32_t ipBytes = 20 + udpBytes;
    const uint32_t frameBytes = 14 + ipBytes;

    std::vector<uint8_t> rec;
    rec.reserve(kRecordHeaderBytes + frameBytes);
    timespec ts{};
    clock_gettime(CLOCK_REALTIME, &ts);
    putLe32(rec, static_cast<uint32_t>(ts.tv_sec));
    putLe32(rec, static_cast<uint32_t>(ts.tv_nsec));
    putLe32(rec, frameBytes);
    putLe32(rec, frameBytes);
    rec.resize(kRecordHeaderBytes + frameBytes);
    const std::span<uint8_t> frame = std::span(rec).subspan(kRecordHeaderBytes);
    ByteWriter w(frame);
    // Ethernet
    w.bytes(dst.mac);
    w.bytes(src.mac);
    w.u16(0x0800);
    // IPv4
    const size_t ip = w.offset();
    w.u8(0x45);
    w.u8(0x02);  // ECN capable, as RoCEv2 NICs mark
    w.u16(static_cast<uint16_t>(ipBytes));
    w.u16(static_cast<uint16_t>(psn));
    w.u16(0x4000);  // don't fragment
    w.u8(64);
    w.u8(17);  // UDP
    const size_t checksum = w.offset();
    w.u16(0);
    w.u32(src.ipv4);
    w.u32(dst.ipv4);
    const size_t udp = w.offset();
    w.seek(checksum);
    w.u16(ipChecksum(frame.data() + ip, 20));
    w.seek(udp);
    // UDP: the source port carries flow entropy (here the source QPN), as NICs do.
    w.u16(static_cast<uint16_t>(0xc000 | (src.qpn & 0x3fff)));
    w.u16(kRoceV2Port);
    w.u16(static_cast<uint16_t>(udpBytes));
    w.u16(0);
    // BTH: opcode, SE|M|pad|tver, pkey, resv, destQP, A|resv, PSN
    w.u8(opcode);
    w.u8(static_cast<uint8_t>((solicited ? 0x80 : 0) | 0x40 | (pad << 4)));
    w.u16(0xffff);
    w.u32(dst.qpn & kQpnMask);
    w.u32(psn & kPsnMask);
    if (reth != nullptr) w.bytes(std::span(reth, kRethBytes));
    w.bytes(payload);
    w.zeros(pad);
    w.u32(0);  // ICRC not computed
    [[maybe_unused]] const ssize_t n = ::write(m_fd, rec.data(), rec.size());
}

uint32_t Capture::writeSend(const CaptureEndpoint& src, const CaptureEndpoint& dst, uint32_t psn, bool solicited,
                            std::span<const uint8_t> payload, uint32_t mtuBytes) {
    const uint32_t packets = packetCount(payload.size(), mtuBytes);
    for (uint32_t i = 0; i < packets; ++i) {
        const size_t offset = size_t{i} * mtuBytes;
        const size_t len = std::min<size_t>(mtuBytes, payload.size() - std::min(offset, payload.size()));
        uint8_t opcode = kSendMiddle;
        if (packets == 1) {
            opcode = kSendOnly;
        } else if (i == 0) {
            opcode = kSendFirst;
        } else if (i + 1 == packets) {
            opcode = kSendLast;
        }
        const bool last = i + 1 == packets;
        writePacket(src, dst, opcode, solicited && last, psn + i, nullptr,
                    payload.subspan(std::min(offset, payload.size()), len));
    }
    return packets;
}

uint32_t Capture::writeRdmaWrite(const CaptureEndpoint& src, const CaptureEndpoint& dst, uint32_t psn,
                                 uint64_t remoteAddr, uint32_t rkey, std::span<const uint8_t> payload,
                                 uint32_t mtuBytes) {
    // RETH: virtual address, rkey, DMA length.
    std::array<uint8_t, kRethBytes> reth{};
    ByteWriter r(reth);
    r.u64(remoteAddr);
    r.u32(rkey);
    r.u32(static_cast<uint32_t>(payload.size()));
    const uint32_t packets = packetCount(payload.size(), mtuBytes);
    for (uint32_t i = 0; i < packets; ++i) {
        const size_t offset = size_t{i} * mtuBytes;
        const size_t len = std::min<size_t>(mtuBytes, payload.size() - std::min(offset, payload.size()));
        uint8_t opcode = kWriteMiddle;
        if (packets == 1) {
            opcode = kWriteOnly;
        } else if (i == 0) {
            opcode = kWriteFirst;
        } else if (i + 1 == packets) {
            opcode = kWriteLast;
        }
        const bool first = i == 0;
        writePacket(src, dst, opcode, false, psn + i, first ? reth.data() : nullptr,
                    payload.subspan(std::min(offset, payload.size()), len));
    }
    return packets;
}

}  // namespace smcr::fabric::sim
