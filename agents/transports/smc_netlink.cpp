// Generic netlink by hand: resolve the family by name (nlctrl), then one
// request (acknowledged) or one dump (multipart, ended by NLMSG_DONE).
// Attributes are walked with explicit bounds; a malformed reply is an error,
// never a read past the buffer.
#include "smc_netlink.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <functional>
#include <map>

#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/smc.h>
#include <sys/socket.h>
#include <unistd.h>

namespace smclab::transports::smcnl {

namespace {

constexpr size_t kReceiveBufferBytes = 64 * 1024;
constexpr int kTimeoutMs = 2000;
constexpr size_t kMessageReserveBytes = 256;  // every request here is smaller

smcr::Unexpected netlinkError(const std::string& what, int err) {
    return smcr::fail(smcr::makeSystemError(what, err));
}

bool failedWith(const Status& st, int err) {
    return !st.ok() && st.error().sysErrno == err;
}

// One attribute: its type (flags masked off) and payload.
struct Attr {
    uint16_t type = 0;
    const uint8_t* data = nullptr;
    size_t len = 0;
};

// Splits [data, data+len) into attributes; false if one overruns.
bool parseAttrs(const uint8_t* data, size_t len, std::vector<Attr>* out) {
    size_t off = 0;
    while (off + NLA_HDRLEN <= len) {
        nlattr header{};
        std::memcpy(&header, data + off, sizeof header);
        if (header.nla_len < NLA_HDRLEN || off + header.nla_len > len) return false;
        out->push_back({static_cast<uint16_t>(header.nla_type & NLA_TYPE_MASK), data + off + NLA_HDRLEN,
                        static_cast<size_t>(header.nla_len - NLA_HDRLEN)});
        off += NLA_ALIGN(header.nla_len);
    }
    return true;
}

uint64_t attrUnsigned(const Attr& a) {
    // The kernel puts u8/u16/u32/u64 in host order.
    switch (a.len) {
        case 1:
            return a.data[0];
        case 2: {
            uint16_t v = 0;
            std::memcpy(&v, a.data, 2);
            return v;
        }
        case 4: {
            uint32_t v = 0;
            std::memcpy(&v, a.data, 4);
            return v;
        }
        case 8: {
            uint64_t v = 0;
            std::memcpy(&v, a.data, 8);
            return v;
        }
        default:
            return 0;
    }
}

std::string attrString(const Attr& a) {
    const auto* chars = reinterpret_cast<const char*>(a.data);
    return std::string(chars, strnlen(chars, a.len));
}

// The kernel pads EIDs and host names with blanks to their field's width.
std::string withoutPadding(std::string s) {
    while (!s.empty() && s.back() == ' ') s.pop_back();
    return s;
}

// A request under construction: nlmsghdr, genlmsghdr, then attributes.
class Message {
public:
    Message(uint16_t family, uint8_t command, uint16_t flags) {
        m_bytes.reserve(kMessageReserveBytes);
        m_bytes.resize(NLMSG_HDRLEN + GENL_HDRLEN);
        nlmsghdr header{};
        header.nlmsg_type = family;
        header.nlmsg_flags = static_cast<uint16_t>(NLM_F_REQUEST | flags);
        std::memcpy(m_bytes.data(), &header, sizeof header);
        genlmsghdr genl{};
        genl.cmd = command;
        genl.version = 1;
        std::memcpy(m_bytes.data() + NLMSG_HDRLEN, &genl, sizeof genl);
    }

    void put(uint16_t type, const void* data, size_t len) {
        const size_t off = m_bytes.size();
        m_bytes.insert(m_bytes.end(), NLA_ALIGN(NLA_HDRLEN + len), uint8_t{0});
        nlattr header{};
        header.nla_len = static_cast<uint16_t>(NLA_HDRLEN + len);
        header.nla_type = type;
        std::memcpy(m_bytes.data() + off, &header, sizeof header);
        if (len > 0) std::memcpy(m_bytes.data() + off + NLA_HDRLEN, data, len);
    }
    void putString(uint16_t type, const std::string& s) { put(type, s.c_str(), s.size() + 1); }

    std::vector<uint8_t>& finish(uint32_t seq) {
        nlmsghdr header{};
        std::memcpy(&header, m_bytes.data(), sizeof header);
        header.nlmsg_len = static_cast<uint32_t>(m_bytes.size());
        header.nlmsg_seq = seq;
        std::memcpy(m_bytes.data(), &header, sizeof header);
        return m_bytes;
    }

private:
    std::vector<uint8_t> m_bytes;
};

// The generic netlink payload of one reply message (after genlmsghdr), as attributes.
using ReplyHandler = std::function<void(const std::vector<Attr>&)>;

class Socket {
public:
    Socket() : m_fd(::socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC)) {}
    ~Socket() {
        if (m_fd >= 0) ::close(m_fd);
    }
    Socket(const Socket&) = delete;
    Socket& operator=(const Socket&) = delete;

    Status open() {
        if (m_fd < 0) return netlinkError("netlink socket", errno);
        timeval tv{kTimeoutMs / 1000, (kTimeoutMs % 1000) * 1000};
        ::setsockopt(m_fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        return {};
    }

    // Sends `message` and reads replies until the ack (or NLMSG_DONE for a
    // dump), handing each data message's attributes to `handler`.
    Status transact(Message& message, const std::string& what, const ReplyHandler& handler) {
        const uint32_t seq = ++m_seq;
        const std::vector<uint8_t>& bytes = message.finish(seq);
        sockaddr_nl kernel{};
        kernel.nl_family = AF_NETLINK;
        if (::sendto(m_fd, bytes.data(), bytes.size(), 0, reinterpret_cast<sockaddr*>(&kernel), sizeof kernel) < 0)
            return netlinkError(what, errno);
        std::vector<uint8_t> buffer(kReceiveBufferBytes);
        for (;;) {
            const ssize_t n = ::recv(m_fd, buffer.data(), buffer.size(), 0);
            if (n < 0) {
                if (errno == EINTR) continue;
                return netlinkError(what, errno == EAGAIN ? ETIMEDOUT : errno);
            }
            size_t off = 0;
            while (off + NLMSG_HDRLEN <= static_cast<size_t>(n)) {
                nlmsghdr header{};
                std::memcpy(&header, buffer.data() + off, sizeof header);
                if (header.nlmsg_len < NLMSG_HDRLEN || off + header.nlmsg_len > static_cast<size_t>(n))
                    return smcr::fail(smcr::Errc::malformed, what + ": truncated netlink reply");
                const uint8_t* payload = buffer.data() + off + NLMSG_HDRLEN;
                const size_t payloadLen = header.nlmsg_len - NLMSG_HDRLEN;
                off += NLMSG_ALIGN(header.nlmsg_len);
                if (header.nlmsg_seq != seq) continue;
                if (header.nlmsg_type == NLMSG_DONE) return {};
                if (header.nlmsg_type == NLMSG_ERROR) {
                    nlmsgerr err{};
                    if (payloadLen < sizeof err)
                        return smcr::fail(smcr::Errc::malformed, what + ": short netlink error");
                    std::memcpy(&err, payload, sizeof err);
                    if (err.error == 0) return {};
                    return netlinkError(what, -err.error);
                }
                if (payloadLen < GENL_HDRLEN) continue;
                std::vector<Attr> attrs;
                if (!parseAttrs(payload + GENL_HDRLEN, payloadLen - GENL_HDRLEN, &attrs))
                    return smcr::fail(smcr::Errc::malformed, what + ": malformed attributes");
                handler(attrs);
            }
        }
    }

    Result<uint16_t> family(const std::string& name) {
        Message request(GENL_ID_CTRL, CTRL_CMD_GETFAMILY, NLM_F_ACK);
        request.putString(CTRL_ATTR_FAMILY_NAME, name);
        uint16_t id = 0;
        const Status st = transact(request, "netlink family " + name, [&](const std::vector<Attr>& attrs) {
            for (const Attr& a : attrs)
                if (a.type == CTRL_ATTR_FAMILY_ID) id = static_cast<uint16_t>(attrUnsigned(a));
        });
        if (!st.ok()) {
            if (failedWith(st, ENOENT))
                return smcr::fail(smcr::Errc::notSupported,
                                  "netlink family " + name + " not found: the smc module is not loaded");
            return smcr::fail(st.error());
        }
        if (id == 0) return smcr::fail(smcr::Errc::malformed, "netlink family " + name + ": no id in reply");
        return id;
    }

private:
    int m_fd;
    uint32_t m_seq = 0;
};

// A socket and a resolved family, or the reason there is none.
struct Session {
    Socket socket;
    uint16_t familyId = 0;
};

Status openSession(Session* session, const char* familyName) {
    if (Status st = session->socket.open(); !st.ok()) return st;
    auto id = session->socket.family(familyName);
    if (!id) return smcr::fail(id.error());
    session->familyId = *id;
    return {};
}

// One dump of `family`'s `command`: each reply's top-level attributes of
// type `nestType` handed to `perNest` as their inner attributes (a nest
// that does not parse is skipped).
Status dumpNests(const char* family, uint8_t command, uint16_t nestType, const std::string& what,
                 const std::function<void(const std::vector<Attr>&)>& perNest) {
    Session session;
    if (Status st = openSession(&session, family); !st.ok()) return st;
    Message request(session.familyId, command, NLM_F_DUMP);
    return session.socket.transact(request, what, [&](const std::vector<Attr>& top) {
        for (const Attr& nest : top) {
            if (nest.type != nestType) continue;
            std::vector<Attr> attrs;
            if (parseAttrs(nest.data, nest.len, &attrs)) perNest(attrs);
        }
    });
}

void readRmbStats(const Attr& nest, bool tx, TechStats* t) {
    std::vector<Attr> attrs;
    if (!parseAttrs(nest.data, nest.len, &attrs)) return;
    for (const Attr& a : attrs) {
        const uint64_t v = attrUnsigned(a);
        switch (a.type) {
            case SMC_NLA_STATS_RMB_FULL_CNT:
                if (tx)
                    t->rmbFullPeer += v;
                else
                    t->rmbFull += v;
                break;
            case SMC_NLA_STATS_RMB_ALLOC_CNT:
                t->rmbAllocations += v;
                break;
            case SMC_NLA_STATS_RMB_REUSE_CNT:
                t->rmbReuses += v;
                break;
            default:
                break;
        }
    }
}

void readTech(const Attr& nest, TechStats* t) {
    std::vector<Attr> attrs;
    if (!parseAttrs(nest.data, nest.len, &attrs)) return;
    for (const Attr& a : attrs) {
        const uint64_t v = attrUnsigned(a);
        switch (a.type) {
            case SMC_NLA_STATS_T_CLNT_V1_SUCC:
                t->clientV1Success = v;
                break;
            case SMC_NLA_STATS_T_CLNT_V2_SUCC:
                t->clientV2Success = v;
                break;
            case SMC_NLA_STATS_T_SRV_V1_SUCC:
                t->serverV1Success = v;
                break;
            case SMC_NLA_STATS_T_SRV_V2_SUCC:
                t->serverV2Success = v;
                break;
            case SMC_NLA_STATS_T_RX_BYTES:
                t->rxBytes = v;
                break;
            case SMC_NLA_STATS_T_TX_BYTES:
                t->txBytes = v;
                break;
            case SMC_NLA_STATS_T_RX_CNT:
                t->rxCalls = v;
                break;
            case SMC_NLA_STATS_T_TX_CNT:
                t->txCalls = v;
                break;
            case SMC_NLA_STATS_T_CORK_CNT:
                t->corkCount = v;
                break;
            case SMC_NLA_STATS_T_NDLY_CNT:
                t->nodelayCount = v;
                break;
            case SMC_NLA_STATS_T_SENDPAGE_CNT:
                t->sendpageCount = v;
                break;
            case SMC_NLA_STATS_T_SPLICE_CNT:
                t->spliceCount = v;
                break;
            case SMC_NLA_STATS_T_URG_DATA_CNT:
                t->urgentCount = v;
                break;
            case SMC_NLA_STATS_T_TX_RMB_STATS:
                readRmbStats(a, true, t);
                break;
            case SMC_NLA_STATS_T_RX_RMB_STATS:
                readRmbStats(a, false, t);
                break;
            default:
                break;
        }
    }
}

const std::map<uint32_t, const char*>& reasonNames() {
    // SMC_CLC_DECL_* of net/smc/smc_clc.h, by the kernel's own names.
    static const std::map<uint32_t, const char*> kNames{
        {0x01010000, "MEM"},        {0x02010000, "TIMEOUT_CL"}, {0x02020000, "TIMEOUT_AL"}, {0x02030000, "TIMEOUT_CD"},
        {0x02040000, "TIMEOUT_AD"}, {0x03000000, "CNFERR"},     {0x03010000, "PEERNOSMC"},  {0x03020000, "IPSEC"},
        {0x03030000, "NOSMCDEV"},   {0x03030001, "NOSMCDDEV"},  {0x03030002, "NOSMCRDEV"},  {0x03030003, "NOISM2SUPP"},
        {0x03030004, "NOV2EXT"},    {0x03030005, "NOV2DEXT"},   {0x03030006, "NOSEID"},     {0x03030007, "NOSMCD2DEV"},
        {0x03030008, "NOUEID"},     {0x03030009, "RELEASEERR"}, {0x0303000a, "MAXCONNERR"}, {0x0303000b, "MAXLINKERR"},
        {0x03040000, "MODEUNSUPP"}, {0x03050000, "RMBE_EC"},    {0x03060000, "OPTUNSUPP"},  {0x03070000, "DIFFPREFIX"},
        {0x03080000, "GETVLANERR"}, {0x03090000, "ISMVLANERR"}, {0x030a0000, "NOACTLINK"},  {0x030b0000, "NOSRVLINK"},
        {0x030c0000, "VERSMISMAT"}, {0x030d0000, "MAX_DMB"},    {0x030e0000, "NOROUTE"},    {0x030f0000, "NOINDIRECT"},
        {0x04000000, "SYNCERR"},    {0x05000000, "PEERDECL"},   {0x09990000, "INTERR"},     {0x09990001, "ERR_RTOK"},
        {0x09990002, "ERR_RDYLNK"}, {0x09990003, "ERR_REGBUF"}, {0x09990004, "ERR_REGRMB"},
    };
    return kNames;
}

// Attributes newer than Debian 12's <linux/smc.h> (6.1): 6.5 appended the
// negotiated limits to SMC_NLA_LGR_R_V2 after SMC_NLA_LGR_R_V2_DIRECT.
constexpr uint16_t kLgrV2MaxConns = SMC_NLA_LGR_R_V2_DIRECT + 1;
constexpr uint16_t kLgrV2MaxLinks = SMC_NLA_LGR_R_V2_DIRECT + 2;

void readLgrV2Common(const Attr& nest, LinkGroup* g) {
    std::vector<Attr> attrs;
    if (!parseAttrs(nest.data, nest.len, &attrs)) return;
    for (const Attr& a : attrs) {
        if (a.type == SMC_NLA_LGR_V2_VER) g->smcVersion = static_cast<uint8_t>(attrUnsigned(a));
        if (a.type == SMC_NLA_LGR_V2_REL) g->release = static_cast<uint8_t>(attrUnsigned(a));
        if (a.type == SMC_NLA_LGR_V2_PEER_HOST) g->peerHost = withoutPadding(attrString(a));
        if (a.type == SMC_NLA_LGR_V2_NEG_EID) g->negotiatedEid = withoutPadding(attrString(a));
    }
}

void readLgrV2(const Attr& nest, LinkGroup* g) {
    std::vector<Attr> attrs;
    if (!parseAttrs(nest.data, nest.len, &attrs)) return;
    for (const Attr& a : attrs) {
        if (a.type == SMC_NLA_LGR_R_V2_DIRECT) g->direct = attrUnsigned(a) != 0;
        if (a.type == kLgrV2MaxConns) g->maxConns = static_cast<uint8_t>(attrUnsigned(a));
        if (a.type == kLgrV2MaxLinks) g->maxLinks = static_cast<uint8_t>(attrUnsigned(a));
    }
}

bool validUeidChar(char c) {
    return std::isupper(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '.' ||
           c == '-';
}

}  // namespace

std::string fallbackReasonName(uint32_t reason) {
    const auto& names = reasonNames();
    const auto it = names.find(reason);
    return it == names.end() ? std::string() : std::string(it->second);
}

std::string describeFallbackReason(uint32_t reason) {
    std::array<char, 16> hex{};
    std::snprintf(hex.data(), hex.size(), "0x%08x", reason);
    const std::string name = fallbackReasonName(reason);
    return name.empty() ? std::string(hex.data()) : std::string(hex.data()) + " " + name;
}

Result<KernelStats> readStats() {
    KernelStats stats;
    const Status st = dumpNests(SMC_GENL_FAMILY_NAME, SMC_NETLINK_GET_STATS, SMC_GEN_STATS, "SMC statistics",
                                [&](const std::vector<Attr>& attrs) {
                                    for (const Attr& a : attrs) {
                                        switch (a.type) {
                                            case SMC_NLA_STATS_SMCR_TECH:
                                                readTech(a, &stats.smcr);
                                                break;
                                            case SMC_NLA_STATS_SMCD_TECH:
                                                readTech(a, &stats.smcd);
                                                break;
                                            case SMC_NLA_STATS_CLNT_HS_ERR_CNT:
                                                stats.clientHandshakeErrors = attrUnsigned(a);
                                                break;
                                            case SMC_NLA_STATS_SRV_HS_ERR_CNT:
                                                stats.serverHandshakeErrors = attrUnsigned(a);
                                                break;
                                            default:
                                                break;
                                        }
                                    }
                                });
    if (!st.ok()) return smcr::fail(st.error());
    return stats;
}

Result<std::vector<FallbackCount>> readFallbacks() {
    std::vector<FallbackCount> out;
    const Status st = dumpNests(SMC_GENL_FAMILY_NAME, SMC_NETLINK_GET_FBACK_STATS, SMC_GEN_FBACK_STATS,
                                "SMC fallback statistics", [&](const std::vector<Attr>& attrs) {
                                    FallbackCount entry;
                                    for (const Attr& a : attrs) {
                                        if (a.type == SMC_NLA_FBACK_STATS_TYPE) entry.server = attrUnsigned(a) != 0;
                                        if (a.type == SMC_NLA_FBACK_STATS_RSN_CODE)
                                            entry.reason = static_cast<uint32_t>(attrUnsigned(a));
                                        if (a.type == SMC_NLA_FBACK_STATS_RSN_CNT) entry.count = attrUnsigned(a);
                                    }
                                    if (entry.reason != 0 && entry.count != 0) out.push_back(entry);
                                });
    if (!st.ok()) return smcr::fail(st.error());
    return out;
}

Result<std::vector<LinkGroup>> readLinkGroups() {
    std::vector<LinkGroup> out;
    const Status st = dumpNests(SMC_GENL_FAMILY_NAME, SMC_NETLINK_GET_LGR_SMCR, SMC_GEN_LGR_SMCR, "SMC-R link groups",
                                [&](const std::vector<Attr>& attrs) {
                                    LinkGroup g;
                                    for (const Attr& a : attrs) {
                                        switch (a.type) {
                                            case SMC_NLA_LGR_R_ID:
                                                g.id = static_cast<uint32_t>(attrUnsigned(a));
                                                break;
                                            case SMC_NLA_LGR_R_ROLE:
                                                g.server = attrUnsigned(a) != 0;
                                                break;
                                            case SMC_NLA_LGR_R_TYPE:
                                                g.type = static_cast<uint8_t>(attrUnsigned(a));
                                                break;
                                            case SMC_NLA_LGR_R_VLAN_ID:
                                                g.vlanId = static_cast<uint8_t>(attrUnsigned(a));
                                                break;
                                            case SMC_NLA_LGR_R_CONNS_NUM:
                                                g.conns = static_cast<uint32_t>(attrUnsigned(a));
                                                break;
                                            case SMC_NLA_LGR_R_PNETID:
                                                g.pnetid = attrString(a);
                                                break;
                                            case SMC_NLA_LGR_R_V2_COMMON:
                                                readLgrV2Common(a, &g);
                                                break;
                                            case SMC_NLA_LGR_R_V2:
                                                readLgrV2(a, &g);
                                                break;
                                            default:
                                                break;
                                        }
                                    }
                                    out.push_back(g);
                                });
    if (!st.ok()) return smcr::fail(st.error());
    return out;
}

std::string linkGroupTypeName(uint8_t type) {
    switch (type) {
        case 0:
            return "NONE";
        case 1:
            return "SINGLE";
        case 2:
            return "SYM";
        case 3:
            return "ASYMP";
        case 4:
            return "ASYML";
        default:
            return std::to_string(type);
    }
}

Status addUeid(const std::string& ueid) {
    // SMC_NLA_EID_TABLE_ENTRY must be exactly SMC_MAX_EID_LEN + 1 bytes: the
    // EID blank-padded to 32, then a NUL (smc_nl_add_ueid).
    if (ueid.empty() || ueid.size() > SMC_MAX_EID_LEN)
        return smcr::fail(smcr::Errc::invalidArgument, "UEID '" + ueid + "': 1 to 32 characters");
    std::string padded(SMC_MAX_EID_LEN, ' ');
    for (size_t i = 0; i < ueid.size(); ++i) {
        const char c = static_cast<char>(std::toupper(static_cast<unsigned char>(ueid[i])));
        if (!validUeidChar(c))
            return smcr::fail(smcr::Errc::invalidArgument,
                              "UEID '" + ueid + "': only letters, digits, '.' and '-' are allowed");
        padded[i] = c;
    }
    if (!std::isalnum(static_cast<unsigned char>(padded[0])))
        return smcr::fail(smcr::Errc::invalidArgument, "UEID '" + ueid + "' must start with a letter or digit");
    Session session;
    if (Status st = openSession(&session, SMC_GENL_FAMILY_NAME); !st.ok()) return st;
    Message request(session.familyId, SMC_NETLINK_ADD_UEID, NLM_F_ACK);
    request.putString(SMC_NLA_EID_TABLE_ENTRY, padded);
    const Status st = session.socket.transact(request, "add UEID " + ueid, [](const std::vector<Attr>&) {});
    if (failedWith(st, EEXIST)) return {};
    return st;
}

Result<std::vector<std::string>> listUeids() {
    Session session;
    if (Status st = openSession(&session, SMC_GENL_FAMILY_NAME); !st.ok()) return smcr::fail(st.error());
    Message request(session.familyId, SMC_NETLINK_DUMP_UEID, NLM_F_DUMP);
    std::vector<std::string> out;
    const Status st = session.socket.transact(request, "UEID table", [&](const std::vector<Attr>& attrs) {
        for (const Attr& a : attrs) {
            if (a.type != SMC_NLA_EID_TABLE_ENTRY) continue;
            out.push_back(withoutPadding(attrString(a)));
        }
    });
    if (!st.ok()) return smcr::fail(st.error());
    return out;
}

Status addPnet(const std::string& pnetid, const std::string& ethName, const std::string& ibName, int ibPort) {
    if (pnetid.empty() || pnetid.size() > 16)
        return smcr::fail(smcr::Errc::invalidArgument, "pnetid '" + pnetid + "': 1 to 16 characters");
    if (ethName.empty() && ibName.empty())
        return smcr::fail(smcr::Errc::invalidArgument, "pnetid " + pnetid + ": give a netdev or an RDMA device");
    if (!ibName.empty() && (ibPort < 1 || ibPort > 2))
        return smcr::fail(smcr::Errc::invalidArgument, "pnetid " + pnetid + ": RDMA port must be 1 or 2");
    std::string upper = pnetid;
    std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) { return std::toupper(c); });
    Session session;
    if (Status st = openSession(&session, SMCR_GENL_FAMILY_NAME); !st.ok()) return st;
    Message request(session.familyId, SMC_PNETID_ADD, NLM_F_ACK);
    request.putString(SMC_PNETID_NAME, upper);
    if (!ethName.empty()) request.putString(SMC_PNETID_ETHNAME, ethName);
    if (!ibName.empty()) {
        request.putString(SMC_PNETID_IBNAME, ibName);
        const auto port = static_cast<uint8_t>(ibPort);
        request.put(SMC_PNETID_IBPORT, &port, 1);
    }
    const std::string what = "pnet " + upper + " " + ethName + (ibName.empty() ? "" : " " + ibName);
    const Status st = session.socket.transact(request, what, [](const std::vector<Attr>&) {});
    if (failedWith(st, EEXIST)) return {};
    return st;
}

Result<std::vector<PnetEntry>> listPnets() {
    Session session;
    if (Status st = openSession(&session, SMCR_GENL_FAMILY_NAME); !st.ok()) return smcr::fail(st.error());
    Message request(session.familyId, SMC_PNETID_GET, NLM_F_DUMP);
    std::vector<PnetEntry> out;
    const Status st = session.socket.transact(request, "pnet table", [&](const std::vector<Attr>& attrs) {
        PnetEntry entry;
        for (const Attr& a : attrs) {
            if (a.type == SMC_PNETID_NAME) entry.pnetid = attrString(a);
            if (a.type == SMC_PNETID_ETHNAME) entry.ethName = attrString(a);
            if (a.type == SMC_PNETID_IBNAME) entry.ibName = attrString(a);
            if (a.type == SMC_PNETID_IBPORT) entry.ibPort = static_cast<int>(attrUnsigned(a));
        }
        // The kernel dumps a netdev and an RDMA port as separate entries and
        // fills the half an entry lacks with "n/a" and port 0xff
        // (net/smc/smc_pnet.c, smc_pnet_set_nla).
        if (entry.ethName == "n/a") entry.ethName.clear();
        if (entry.ibName == "n/a") {
            entry.ibName.clear();
            entry.ibPort = 0;
        }
        if (!entry.pnetid.empty()) out.push_back(entry);
    });
    if (!st.ok()) return smcr::fail(st.error());
    return out;
}

}  // namespace smclab::transports::smcnl
