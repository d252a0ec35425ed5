// CDC message, smc-protocol.md 3: the 44-byte SEND after a connection's RDMA
// WRITEs. Cursor = reserved(2), wrap(2), count(4). Unknown flag bits and
// reserved bytes are ignored on receive, as the kernel does.
#include <string>

#include <smcr/wire/cdc.h>
#include <smcr/wire/describe.h>

#include "common/byte_reader.h"
#include "common/byte_writer.h"

namespace smcr::wire {

namespace {

Cursor readCursor(ByteReader& in, const char* name) {
    Cursor cursor;
    in.skip(name, 2);
    cursor.wrap = in.u16(name);
    cursor.count = in.u32(name);
    return cursor;
}

void writeCursor(ByteWriter& out, const Cursor& cursor) {
    out.zeros(2);
    out.u16(cursor.wrap);
    out.u32(cursor.count);
}

}  // namespace

CdcBytes encode(const CdcMessage& msg) {
    CdcBytes bytes{};
    ByteWriter out(bytes);
    out.u8(kCdcType);
    out.u8(static_cast<uint8_t>(kCdcMessageBytes));
    out.u16(msg.seqno);
    out.u32(msg.alertToken);
    writeCursor(out, msg.producer);
    writeCursor(out, msg.consumer);
    const CdcProducerFlags& p = msg.prodFlags;
    out.u8(static_cast<uint8_t>((p.writeBlocked ? 0x80 : 0) | (p.urgentPending ? 0x40 : 0) |
                                (p.urgentPresent ? 0x20 : 0) | (p.consumerUpdateRequested ? 0x10 : 0) |
                                (p.failoverValidation ? 0x08 : 0)));
    const CdcConnStateFlags& c = msg.connFlags;
    out.u8(static_cast<uint8_t>((c.peerDoneWriting ? 0x80 : 0) | (c.peerConnClosed ? 0x40 : 0) |
                                (c.peerAbnormalClose ? 0x20 : 0)));
    out.u8(msg.credits);
    return bytes;
}

Result<CdcMessage> decodeCdc(std::span<const uint8_t> bytes) {
    ByteReader in(bytes, "cdc");
    const uint8_t type = in.u8("type");
    if (in.ok() && type != kCdcType) {
        in.fail("type", formatHex(type, 2) + " is not a CDC message (0xfe)");
    }
    const uint8_t length = in.u8("length");
    if (in.ok() && bytes.size() != kCdcMessageBytes) {
        in.fail("length", "message is " + std::to_string(bytes.size()) + " bytes, a CDC message is exactly 44");
    }
    if (in.ok() && length != kCdcMessageBytes) in.fail("length", std::to_string(length) + ", must be 44");
    CdcMessage msg;
    msg.seqno = in.u16("seqno");
    msg.alertToken = in.u32("token");
    msg.producer = readCursor(in, "prod");
    msg.consumer = readCursor(in, "cons");
    const uint8_t prod = in.u8("prod_flags");
    msg.prodFlags.writeBlocked = (prod & 0x80) != 0;
    msg.prodFlags.urgentPending = (prod & 0x40) != 0;
    msg.prodFlags.urgentPresent = (prod & 0x20) != 0;
    msg.prodFlags.consumerUpdateRequested = (prod & 0x10) != 0;
    msg.prodFlags.failoverValidation = (prod & 0x08) != 0;
    const uint8_t conn = in.u8("conn_state_flags");
    msg.connFlags.peerDoneWriting = (conn & 0x80) != 0;
    msg.connFlags.peerConnClosed = (conn & 0x40) != 0;
    msg.connFlags.peerAbnormalClose = (conn & 0x20) != 0;
    msg.credits = in.u8("credits");
    if (!in.ok()) return in.takeError();
    return msg;
}

}  // namespace smcr::wire
