// CLC Decline reason codes (peer diagnosis, CLC Decline offset 16), which are
// also the fallback reasons counted in the statistics. Names follow the
// kernel's SMC_CLC_DECL_* constants without the prefix (smc-protocol.md 1.6).
#pragma once

#include <cstdint>
#include <span>

namespace smcr::wire {

enum class DeclineReason : uint32_t {
    invalid = 0,
    mem = 0x01010000,         // MEM: insufficient memory
    timeoutCl = 0x02010000,   // TIMEOUT_CL: timeout waiting for CONFIRM LINK
    timeoutAl = 0x02020000,   // TIMEOUT_AL: timeout waiting for ADD LINK
    cnfErr = 0x03000000,      // CNFERR: configuration error
    peerNoSmc = 0x03010000,   // PEERNOSMC: peer did not indicate SMC (no TCP option)
    ipsec = 0x03020000,       // IPSEC
    noSmcDev = 0x03030000,    // NOSMCDEV
    noSmcdDev = 0x03030001,   // NOSMCDDEV
    noSmcrDev = 0x03030002,   // NOSMCRDEV
    noIsm2Supp = 0x03030003,  // NOISM2SUPP
    noV2Ext = 0x03030004,     // NOV2EXT
    noV2dExt = 0x03030005,    // NOV2DEXT
    noSeid = 0x03030006,      // NOSEID
    noSmcd2Dev = 0x03030007,  // NOSMCD2DEV
    noUeid = 0x03030008,      // NOUEID
    releaseErr = 0x03030009,  // RELEASEERR
    maxConnErr = 0x0303000a,  // MAXCONNERR
    maxLinkErr = 0x0303000b,  // MAXLINKERR
    modeUnsupp = 0x03040000,  // MODEUNSUPP
    rmbeEc = 0x03050000,      // RMBE_EC: peer uses the RMBE eyecatcher
    optUnsupp = 0x03060000,   // OPTUNSUPP: fastopen
    diffPrefix = 0x03070000,  // DIFFPREFIX
    getVlanErr = 0x03080000,  // GETVLANERR
    ismVlanErr = 0x03090000,  // ISMVLANERR
    noActLink = 0x030a0000,   // NOACTLINK
    noSrvLink = 0x030b0000,   // NOSRVLINK
    versMismat = 0x030c0000,  // VERSMISMAT
    maxDmb = 0x030d0000,      // MAX_DMB
    noRoute = 0x030e0000,     // NOROUTE (v2)
    noIndirect = 0x030f0000,  // NOINDIRECT (v2)
    syncErr = 0x04000000,     // SYNCERR: out of sync
    peerDecl = 0x05000000,    // PEERDECL: local code, the peer declined
    intErr = 0x09990000,      // INTERR
    errRtok = 0x09990001,     // ERR_RTOK
    errRdyLnk = 0x09990002,   // ERR_RDYLNK
    errRegBuf = 0x09990003,   // ERR_REGBUF
    creditsErr = 0x09990004,  // CREDITSERR: EXPERIMENTAL (RQ credits RFC, seed 004)
};

struct DeclineReasonInfo {
    uint32_t code;
    const char* name;         // kernel name without SMC_CLC_DECL_, e.g. "PEERNOSMC"
    const char* description;  // one line for people
};

std::span<const DeclineReasonInfo> declineReasonTable();
// "PEERNOSMC" etc.; nullptr for a code not in the table.
const char* declineReasonName(uint32_t code);
const char* declineReasonDescription(uint32_t code);

}  // namespace smcr::wire
