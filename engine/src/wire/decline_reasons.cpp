#include <smcr/wire/decline_reasons.h>

namespace smcr::wire {

namespace {

// smc-protocol.md 1.6 (kernel SMC_CLC_DECL_*), plus the experimental
// CREDITSERR of the RQ credits RFC (seed 004).
constexpr DeclineReasonInfo kReasons[] = {
    {0x01010000, "MEM", "insufficient memory resources"},
    {0x02010000, "TIMEOUT_CL", "timeout waiting for CONFIRM LINK"},
    {0x02020000, "TIMEOUT_AL", "timeout waiting for ADD LINK"},
    {0x03000000, "CNFERR", "configuration error"},
    {0x03010000, "PEERNOSMC", "peer did not indicate SMC (no TCP option)"},
    {0x03020000, "IPSEC", "IPsec usage"},
    {0x03030000, "NOSMCDEV", "no SMC device found"},
    {0x03030001, "NOSMCDDEV", "no SMC-D device found"},
    {0x03030002, "NOSMCRDEV", "no SMC-R device found"},
    {0x03030003, "NOISM2SUPP", "hardware has no ISMv2 support"},
    {0x03030004, "NOV2EXT", "peer sent no CLC v2 extension"},
    {0x03030005, "NOV2DEXT", "peer sent no CLC SMC-Dv2 extension"},
    {0x03030006, "NOSEID", "peer sent no SEID"},
    {0x03030007, "NOSMCD2DEV", "no SMC-Dv2 device found"},
    {0x03030008, "NOUEID", "peer sent no UEID or UEIDs do not match"},
    {0x03030009, "RELEASEERR", "release version negotiation failed"},
    {0x0303000a, "MAXCONNERR", "max connections negotiation failed"},
    {0x0303000b, "MAXLINKERR", "max links negotiation failed"},
    {0x03040000, "MODEUNSUPP", "smc modes do not match (R or D)"},
    {0x03050000, "RMBE_EC", "peer has eyecatcher in RMBE"},
    {0x03060000, "OPTUNSUPP", "fastopen sockopt not supported"},
    {0x03070000, "DIFFPREFIX", "IP prefix / subnet mismatch"},
    {0x03080000, "GETVLANERR", "err to get vlan id of ip device"},
    {0x03090000, "ISMVLANERR", "err to reg vlan id on ism dev"},
    {0x030a0000, "NOACTLINK", "no active smc-r link in link group"},
    {0x030b0000, "NOSRVLINK", "SMC-R link from server not found"},
    {0x030c0000, "VERSMISMAT", "SMC version mismatch"},
    {0x030d0000, "MAX_DMB", "SMC-D DMB limit exceeded"},
    {0x030e0000, "NOROUTE", "SMC-Rv2 conn. no route to peer"},
    {0x030f0000, "NOINDIRECT", "SMC-Rv2 conn. indirect mismatch"},
    {0x04000000, "SYNCERR", "synchronization error (out of sync)"},
    {0x05000000, "PEERDECL", "peer declined during handshake"},
    {0x09990000, "INTERR", "internal error"},
    {0x09990001, "ERR_RTOK", "rtoken handling failed"},
    {0x09990002, "ERR_RDYLNK", "ib ready link failed"},
    {0x09990003, "ERR_REGBUF", "reg rdma bufs failed"},
    {0x09990004, "CREDITSERR", "announce credits failed (experimental RQ credits extension)"},
};

const DeclineReasonInfo* find(uint32_t code) {
    for (const DeclineReasonInfo& info : kReasons) {
        if (info.code == code) return &info;
    }
    return nullptr;
}

}  // namespace

std::span<const DeclineReasonInfo> declineReasonTable() {
    return kReasons;
}

const char* declineReasonName(uint32_t code) {
    const DeclineReasonInfo* info = find(code);
    return info != nullptr ? info->name : nullptr;
}

const char* declineReasonDescription(uint32_t code) {
    const DeclineReasonInfo* info = find(code);
    return info != nullptr ? info->description : nullptr;
}

}  // namespace smcr::wire
