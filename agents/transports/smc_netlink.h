// The kernel's SMC generic netlink families, spoken directly (no libnl, no
// smc-tools: Debian 12 packages neither): the statistics and fallback
// counters a `ksmc` run reads before and after itself (`smcr stats`), and
// the set-up kernel SMC-R needs on soft-RoCE (a UEID for SMC-Rv2, pnet
// entries that tie the rxe device to its netdev: agents/lab/README.md "Kernel
// SMC-R"). Families "SMC_GEN_NETLINK" and "SMC_PNETID" of <linux/smc.h>.
// Statistics are per network namespace: the caller's.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "transport.h"

namespace smclab::transports::smcnl {

// One technology's counters (SMC_NLA_STATS_SMCR_TECH / _SMCD_TECH).
struct TechStats {
    uint64_t clientV1Success = 0;
    uint64_t clientV2Success = 0;
    uint64_t serverV1Success = 0;
    uint64_t serverV2Success = 0;
    uint64_t rxBytes = 0;
    uint64_t txBytes = 0;
    uint64_t rxCalls = 0;  // recvmsg-like calls (SMC_NLA_STATS_T_RX_CNT)
    uint64_t txCalls = 0;
    uint64_t corkCount = 0;     // TCP_CORK switched off (the kernel counts setsockopts, not autocorks)
    uint64_t nodelayCount = 0;  // TCP_NODELAY set
    uint64_t sendpageCount = 0;
    uint64_t spliceCount = 0;
    uint64_t urgentCount = 0;
    uint64_t rmbFullPeer = 0;  // the peer's RMB was full when we wanted to write (tx RMB stats)
    uint64_t rmbFull = 0;      // our RMB was full (rx RMB stats)
    uint64_t rmbAllocations = 0;
    uint64_t rmbReuses = 0;
};

struct KernelStats {
    TechStats smcr;
    TechStats smcd;
    uint64_t clientHandshakeErrors = 0;
    uint64_t serverHandshakeErrors = 0;
};

// One line of the kernel's fallback table: connections of one side that
// fell back to TCP for one reason (an SMC_CLC_DECL_* code).
struct FallbackCount {
    bool server = false;
    uint32_t reason = 0;
    uint64_t count = 0;
};

Result<KernelStats> readStats();
Result<std::vector<FallbackCount>> readFallbacks();

// One SMC-R link group as the kernel lists it (SMC_NETLINK_GET_LGR_SMCR,
// what smc-tools' smcr linkgroup shows). The v2 fields stay zero for an
// SMC-Rv1 group.
struct LinkGroup {
    uint32_t id = 0;
    bool server = false;  // the kernel's role in the group (SMC_SERV)
    uint8_t type = 0;     // enum smc_lgr_type: 1 single, 2 symmetric, 3/4 asymmetric
    uint8_t vlanId = 0;
    uint32_t conns = 0;
    std::string pnetid;
    uint8_t smcVersion = 0;  // 2 for SMC-Rv2; 0 when the kernel sent no v2 part
    uint8_t release = 0;
    std::string peerHost;
    std::string negotiatedEid;
    bool direct = false;   // no gateway between the peers
    uint8_t maxConns = 0;  // the group's limits as negotiated (v2.1; 6.5+ kernels report them)
    uint8_t maxLinks = 0;  // above 1: the kernel adds, or waits for, a second link
};

Result<std::vector<LinkGroup>> readLinkGroups();
// The smc-tools word for a link group type ("SINGLE", "SYM", "ASYMP"...).
std::string linkGroupTypeName(uint8_t type);

// The kernel's name for a decline or fallback code ("NOSMCDEV"), or "" if unknown.
std::string fallbackReasonName(uint32_t reason);
// "0x03030000 NOSMCDEV" (the code alone when it has no name).
std::string describeFallbackReason(uint32_t reason);

// UEIDs: up to 4, 1..32 characters of A-Z 0-9 '.' '-' (upper-cased here;
// the kernel pads them with blanks). Adding one that exists is no error.
Status addUeid(const std::string& ueid);
Result<std::vector<std::string>> listUeids();

// A pnet table entry: `pnetid` ties netdev `ethName` and port `ibPort` of
// RDMA device `ibName` (either may be empty, not both). An entry that
// exists is no error.
Status addPnet(const std::string& pnetid, const std::string& ethName, const std::string& ibName, int ibPort);
// The pnet table as the kernel has it (SMC_PNETID_GET dump): one entry per
// netdev and one per RDMA port, so a PNETID usually has two.
struct PnetEntry {
    std::string pnetid;
    std::string ethName;  // empty when the entry names only an RDMA device
    std::string ibName;   // empty when it names only a netdev
    int ibPort = 0;
};
Result<std::vector<PnetEntry>> listPnets();

}  // namespace smclab::transports::smcnl
