// SPDX-License-Identifier: GPL-2.0
// The SMC TCP option (kind 254, length 6, magic E2 D4 C3 D9, RFC 7609
// A.1) on the SYN and SYN-ACK of chosen TCP ports, written by a sock_ops
// program attached to a cgroup v2. The kernel's SMC-R tells its peers by
// this option: a kernel server falls back at once (PEERNOSMC) when a
// client's SYN lacks it, a kernel client when the SYN-ACK does.
//
// Which sockets: a connect to a remote port in `smc_ports` (the client's
// SYN), a listener on a local port in it (its SYN-ACKs, and only to a SYN
// that carried the option: RFC 7609's rule, and what the kernel does).
// Header options from BPF need Linux 5.10.
//
// What the peer sent is kept per connection on a chosen port, for libsmcr
// to read by the socket's fd (engine/src/core/listener/syn_option.h): a
// connect's SYN-ACK, and an accepted connection's SYN (saved for it:
// TCP_SAVE_SYN on the listener).
#include <linux/bpf.h>
#include <linux/types.h>

#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#define TCP_FLAG_SYN 0x02
#define TCP_FLAG_ACK 0x10
#define SOL_TCP 6
#define TCP_SAVE_SYN 27

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, 64);
    __type(key, __u16);   // port, host order
    __type(value, __u8);  // 1: write the option
} smc_ports SEC(".maps");

// 1: the peer's SYN or SYN-ACK carried the option; 2: it did not.
struct {
    __uint(type, BPF_MAP_TYPE_SK_STORAGE);
    __uint(map_flags, BPF_F_NO_PREALLOC);
    __type(key, int);
    __type(value, __u8);
} smc_peer SEC(".maps");

struct smc_option {
    __u8 kind;
    __u8 len;
    __u8 magic[4];
} __attribute__((packed));

static const struct smc_option kSmcOption = {254, 6, {0xE2, 0xD4, 0xC3, 0xD9}};

static int chosen(__u16 port) {
    return bpf_map_lookup_elem(&smc_ports, &port) != 0;
}

// A SYN-ACK answers with the option only when the SYN carried it.
static int synHadOption(struct bpf_sock_ops* skops) {
    struct smc_option search = {254, 6, {0xE2, 0xD4, 0xC3, 0xD9}};
    return bpf_load_hdr_opt(skops, &search, sizeof(search), BPF_LOAD_HDR_OPT_TCP_SYN) == sizeof(search);
}

// The SYN-ACK (a connect's ACTIVE_ESTABLISHED: the skb is the SYN-ACK).
static int synAckHadOption(struct bpf_sock_ops* skops) {
    struct smc_option search = {254, 6, {0xE2, 0xD4, 0xC3, 0xD9}};
    return bpf_load_hdr_opt(skops, &search, sizeof(search), 0) == sizeof(search);
}

static void record(struct bpf_sock_ops* skops, int present) {
    if (!skops->sk) return;
    __u8* seen = bpf_sk_storage_get(&smc_peer, skops->sk, 0, BPF_SK_STORAGE_GET_F_CREATE);
    if (seen) *seen = present ? 1 : 2;
}

static int wantOption(struct bpf_sock_ops* skops) {
    const __u8 flags = skops->skb_tcp_flags;
    if (!(flags & TCP_FLAG_SYN)) return 0;
    if (!(flags & TCP_FLAG_ACK)) return 1;  // our SYN: the flag was only set for chosen ports
    return synHadOption(skops);
}

SEC("sockops")
int smc_syn_option(struct bpf_sock_ops* skops) {
    switch (skops->op) {
        case BPF_SOCK_OPS_TCP_CONNECT_CB:
            if (chosen((__u16)bpf_ntohl(skops->remote_port))) {
                bpf_sock_ops_cb_flags_set(skops, skops->bpf_sock_ops_cb_flags | BPF_SOCK_OPS_WRITE_HDR_OPT_CB_FLAG);
            }
            break;
        case BPF_SOCK_OPS_TCP_LISTEN_CB:
            // Children (request sockets, then the accepted sockets) inherit the flag.
            if (chosen((__u16)skops->local_port)) {
                bpf_sock_ops_cb_flags_set(skops, skops->bpf_sock_ops_cb_flags | BPF_SOCK_OPS_WRITE_HDR_OPT_CB_FLAG);
                int one = 1;
                bpf_setsockopt(skops, SOL_TCP, TCP_SAVE_SYN, &one, sizeof(one));
            }
            break;
        case BPF_SOCK_OPS_ACTIVE_ESTABLISHED_CB:
            if (chosen((__u16)bpf_ntohl(skops->remote_port))) record(skops, synAckHadOption(skops));
            break;
        case BPF_SOCK_OPS_PASSIVE_ESTABLISHED_CB:
            // Our SYN-ACK carried the option exactly when the SYN did.
            if (chosen((__u16)skops->local_port)) record(skops, synHadOption(skops));
            break;
        case BPF_SOCK_OPS_HDR_OPT_LEN_CB:
            if (wantOption(skops)) bpf_reserve_hdr_opt(skops, sizeof(kSmcOption), 0);
            break;
        case BPF_SOCK_OPS_WRITE_HDR_OPT_CB:
            if (wantOption(skops)) bpf_store_hdr_opt(skops, &kSmcOption, sizeof(kSmcOption), 0);
            break;
        default:
            break;
    }
    return 1;
}

char LICENSE[] SEC("license") = "GPL";
