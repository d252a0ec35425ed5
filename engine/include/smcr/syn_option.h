// What the peer said in its SYN or SYN-ACK about SMC (the TCP option kind
// 254, magic E2 D4 C3 D9, RFC 7609 A.1), where a BPF sock_ops program saw
// it: smc_synopt (agents/syn_option) records, for each connection on its
// ports, whether the peer's SYN (on a listener) or SYN-ACK (on a connect)
// carried the option, in a socket-storage map it pins and names in
// SMCR_SYN_OPTION_MAP for the command it runs. User space cannot read a
// SYN-ACK's options any other way, and the kernel's SMC decides by them:
//   - a kernel server that finds no option in the SYN falls back at once and
//     hands any CLC bytes that follow to its application, so a client whose
//     SYN-ACK lacked the option must not send its Proposal (PEERNOSMC);
//   - a kernel client whose SYN carried the option sends its Proposal next,
//     so the listener need not wait for the first bytes to sort it.
// Without the map (no program, no privileges) every answer is `unknown` and
// the first-bytes detection (core/listener/smc_detect.h) decides as before.
#pragma once

#include <cstdint>

namespace smcr {

enum class PeerSynOption : uint8_t { unknown = 0, present, absent };
const char* peerSynOptionName(PeerSynOption option);

// The record for the connected (or accepted) TCP socket fd.
PeerSynOption peerSynOption(int fd);
// Whether this process runs under smc_synopt's records at all.
bool synOptionRecorded();

}  // namespace smcr
