// Byte vectors taken from the Linux kernel's own SMC-R messages, not written
// by hand. Captured on the VM lab hosts (agents/lab/vm): two QEMU guests
// booting Debian's linux-image-6.12.118+deb12-amd64, soft-RoCE rxe0 on each
// guest's eth0 (vm1 10.77.0.1, vm2 10.77.0.2), UEID "SMCLAB-VM", kernel
// SMC-R on both ends through ksmc_run (an AF_SMC client on vm1, an AF_SMC
// server on vm2), with
//   dumpcap -i eth0 -f "tcp port 5200 or udp port 4791"
// running in vm2. First capture (`smclab lab vm up 2`, the default
// smcr_max_links_per_lgr=1): two connections one after the other (100000
// and 50000 bytes), then 35 s idle. Second capture (`smclab lab vm up 2
// --links 2 --sysctl smcr_max_links_per_lgr=2`): one connection, during
// which the server offered a second link. CLC bytes are the TCP payloads;
// LLC bytes are the RoCEv2 SEND payloads (after the 12-byte BTH, before the
// 4-byte ICRC). Frame numbers are those of the captures.
//
// What they show: the kernel's Proposal is SMC-Rv2 only (typev1 none, no
// v1 GID, MAC or IP prefix area); the FCE is the 52-byte v2.1 form; every
// LLC message of the v2 link group is a v2 type with the 16-bit length
// little-endian (2c 00); only the ADD_LINK request is longer than 44 bytes.
#pragma once

namespace kernelvec {

// vm1's first-contact Proposal: SMC-Rv2 only, one UEID, 156 bytes (frame 4).
inline const char* kProposalV2Only =
    "e2d4c3d9"                                  // 0 eyecatcher SMCR
    "01"                                        // 4 type Proposal
    "009c"                                      // 5 length 156
    "22"                                        // 7 version 2, typev2 R (0), typev1 none (2)
    "0000000000000000"                          // 8 peer id: zero (v2 only)
    "00000000000000000000000000000000"          // 16 GID: zero
    "000000000000"                              // 32 MAC: zero
    "0000"                                      // 38 ip area offset 0: no IP prefix area
    "0000000000000000"                          // 40 ISM GID
    "0000"                                      // 48 ISM CHID
    "001c"                                      // 50 v2 ext offset 28 (from 52 -> 80)
    "000000"                                    // 52 vendor OUI
    "0000000000"                                // 55 vendor options
    "0000000000000000000000000000000000000000"  // 60 reserved(20)
    "01"                                        // 80 v2 ext +0 UEID count 1
    "00"                                        // 81 +1 ISMv2 GID count
    "00"                                        // 82 +2 reserved
    "10"                                        // 83 +3 release 1 (v2.1)
    "0000"                                      // 84 +4 reserved
    "0000"                                      // 86 +6 SMC-Dv2 ext offset
    "00000000000000000000ffff0a4d0001"          // 88 +8 RoCEv2 GID ::ffff:10.77.0.1
    "ff"                                        // 104 +24 max conns 255
    "01"                                        // 105 +25 max links 1 (smcr_max_links_per_lgr=1)
    "0001"                                      // 106 +26 feature mask 0x0001
    "000000000000000000000000"                  // 108 +28 reserved(12)
    "534d434c41422d564d2020202020202020202020202020202020202020202020"  // 120 +40 UEID "SMCLAB-VM", blank padded
    "e2d4c3d9";                                                         // 152 trailer

// vm2's first-contact Accept, 160 bytes (frame 6).
inline const char* kAcceptV2FirstContactKernel =
    "e2d4c3d9"                                                          // 0 eyecatcher
    "02"                                                                // 4 type Accept
    "00a0"                                                              // 5 length 160
    "28"                                                                // 7 version 2, first contact (bit 3), typev1 R
    "caab5254005c0002"                                                  // 8 peer id: 2 random bytes + MAC
    "00000000000000000000ffff0a4d0002"                                  // 16 GID ::ffff:10.77.0.2
    "5254005c0002"                                                      // 32 MAC
    "000011"                                                            // 38 QPN 0x11
    "000003e7"                                                          // 41 RMB rkey
    "01"                                                                // 45 RMBE index 1
    "00000001"                                                          // 46 RMBE alert token 1
    "23"                                                                // 50 RMBE size 2 (64 KiB), QP MTU 3 (1024)
    "00"                                                                // 51 reserved
    "ff14f6d484c10000"                                                  // 52 RMB DMA address
    "00"                                                                // 60 reserved
    "9adc3c"                                                            // 61 initial PSN
    "534d434c41422d564d2020202020202020202020202020202020202020202020"  // 64 EID "SMCLAB-VM"
    "0000000000000000"                                                  // 96 reserved(8)
    "80"                                                                // 104 FCE +0 v2 direct
    "21"                                                                // 105 +1 OS Linux (2), release 1
    "0000"                                                              // 106 +2 reserved
    "766d322020202020202020202020202020202020202020202020202020202020"  // 108 +4 hostname "vm2"
    "ff"                                                                // 140 +36 max conns 255
    "01"                                                                // 141 +37 max links 1
    "0001"                                                              // 142 +38 feature mask 0x0001
    "00000000"                                                          // 144 +40 vendor options
    "0000000000000000"                                                  // 148 +44 reserved(8)
    "e2d4c3d9";                                                         // 156 trailer

// vm1's first-contact Confirm with a one-entry GID list, 180 bytes (frame 8).
inline const char* kConfirmV2GidListKernel =
    "e2d4c3d9"                                                          // 0 eyecatcher
    "03"                                                                // 4 type Confirm
    "00b4"                                                              // 5 length 180
    "28"                                                                // 7 version 2, first contact (bit 3), typev1 R
    "1f9b5254005c0001"                                                  // 8 peer id: 2 random bytes + MAC
    "00000000000000000000ffff0a4d0001"                                  // 16 GID ::ffff:10.77.0.1
    "5254005c0001"                                                      // 32 MAC
    "000011"                                                            // 38 QPN 0x11 (vm1's QP)
    "0000039f"                                                          // 41 RMB rkey
    "01"                                                                // 45 RMBE index 1
    "00000001"                                                          // 46 RMBE alert token 1
    "23"                                                                // 50 RMBE size 2 (64 KiB), QP MTU 3 (1024)
    "00"                                                                // 51 reserved
    "ff2caff703f80000"                                                  // 52 RMB DMA address
    "00"                                                                // 60 reserved
    "145626"                                                            // 61 initial PSN
    "534d434c41422d564d2020202020202020202020202020202020202020202020"  // 64 EID "SMCLAB-VM"
    "0000000000000000"                                                  // 96 reserved(8)
    "80"                                                                // 104 FCE +0 v2 direct
    "21"                                                                // 105 +1 OS Linux (2), release 1
    "0000"                                                              // 106 +2 reserved
    "766d312020202020202020202020202020202020202020202020202020202020"  // 108 +4 hostname "vm1"
    "ff"                                                                // 140 +36 max conns 255
    "01"                                                                // 141 +37 max links 1
    "0001"                                                              // 142 +38 feature mask 0x0001
    "00000000"                                                          // 144 +40 vendor options
    "0000000000000000"                                                  // 148 +44 reserved(8)
    "01000000"                                                          // 156 GID list count 1, reserved(3)
    "00000000000000000000ffff0a4d0001"                                  // 160 GID ::ffff:10.77.0.1
    "e2d4c3d9";                                                         // 176 trailer

// vm2's Accept for the second connection, 108 bytes (frame 153).
inline const char* kAcceptV2ReuseKernel =
    "e2d4c3d9"                          // 0 eyecatcher
    "02"                                // 4 type Accept
    "006c"                              // 5 length 108
    "20"                                // 7 version 2, no first contact: reuses the link group
    "caab5254005c0002"                  // 8 peer id
    "00000000000000000000ffff0a4d0002"  // 16 GID
    "5254005c0002"                      // 32 MAC
    "000011"                            // 38 QPN 0x11 (the same link)
    "000003e7"                          // 41 RMB rkey
    "01"                                // 45 RMBE index 1
    "00000002"                          // 46 RMBE alert token 2
    "23"                                // 50 size 2, MTU 3
    "00"                                // 51 reserved
    "ff14f6d484c10000"                  // 52 RMB DMA address
    "00"                                // 60 reserved
    "9adc3c"                            // 61 PSN
    "534d434c41422d564d2020202020202020202020202020202020202020202020"  // 64 EID
    "0000000000000000"                                                  // 96 reserved(8)
    "e2d4c3d9";                                                         // 104 trailer

// vm1's Confirm for the second connection, 108 bytes (frame 159).
inline const char* kConfirmV2ReuseKernel =
    "e2d4c3d9"                          // 0 eyecatcher
    "03"                                // 4 type Confirm
    "006c"                              // 5 length 108
    "20"                                // 7 version 2, no first contact: reuses the link group
    "1f9b5254005c0001"                  // 8 peer id
    "00000000000000000000ffff0a4d0001"  // 16 GID
    "5254005c0001"                      // 32 MAC
    "000011"                            // 38 QPN 0x11 (the same link)
    "0000039f"                          // 41 RMB rkey
    "01"                                // 45 RMBE index 1
    "00000002"                          // 46 RMBE alert token 2
    "23"                                // 50 size 2, MTU 3
    "00"                                // 51 reserved
    "ff2caff703f80000"                  // 52 RMB DMA address
    "00"                                // 60 reserved
    "145626"                            // 61 PSN
    "534d434c41422d564d2020202020202020202020202020202020202020202020"  // 64 EID
    "0000000000000000"                                                  // 96 reserved(8)
    "e2d4c3d9";                                                         // 104 trailer

// CONFIRM_LINK_V2 request, vm2 -> vm1: 21, length 2c 00, flags 03 (no RMBE eyecatcher), MAC, GID ::ffff:10.77.0.2, QPN
// 0x11, link 1, link UID 0x00000101, max links 1, max conns 255 (frame 10).
inline const char* kLlcConfirmLinkV2Request =
    "212c00035254005c000200000000000000000000ffff0a4d0002000011010000010101ff0000000000000000";

// Its response, vm1 -> vm2: flags 83 (frame 12).
inline const char* kLlcConfirmLinkV2Response =
    "212c00835254005c000100000000000000000000ffff0a4d0001000011010000010101ff0000000000000000";

// CONFIRM_RKEY_V2 for the second connection's RMB, vm2 -> vm1: no further entries, rkey 0x3e7 and its address (frame
// 149).
inline const char* kLlcConfirmRkeyV2Request =
    "262c000000000003e7ff14f6d484c10000000000000000000000000000000000000000000000000000000000";

// Its response, flags 80 (frame 151).
inline const char* kLlcConfirmRkeyV2Response =
    "262c008000000003e7ff14f6d484c10000000000000000000000000000000000000000000000000000000000";

// DELETE_RKEY_V2 when the first connection's RMB was freed, vm2 -> vm1: one rkey, 0x3e7 (frame 134).
inline const char* kLlcDeleteRkeyV2Request =
    "292c000001000000000003e70000000000000000000000000000000000000000000000000000000000000000";

// Its response, vm1 -> vm2: flags 80, count 1, nothing failed (frame 136).
inline const char* kLlcDeleteRkeyV2Response =
    "292c008001000000000000000000000000000000000000000000000000000000000000000000000000000000";

// TEST_LINK_V2 after smcr_testlink_time (30 s) idle, vm1 -> vm2 (frame 237).
inline const char* kLlcTestLinkV2Request =
    "272c000000000000000000000000000000000000000000000000000000000000000000000000000000000000";

// Its response, flags 80 (frame 241).
inline const char* kLlcTestLinkV2Response =
    "272c008000000000000000000000000000000000000000000000000000000000000000000000000000000000";

// ADD_LINK_V2 request with its extension, 88 bytes (length 58 00), vm2 -> vm1 with smcr_max_links_per_lgr=2: MAC, GID,
// QPN 0x12, link 2, MTU 3, PSN; then v2 direct, the client's target GID, one rkey entry {0x346 -> 0x5fe, new address}
// (second capture, frame 16).
inline const char* kLlcAddLinkV2Request =
    "225800005254005c0002000000000000000000000000ffff0a4d000200001202037612770000000000000000800000000000000000000000ff"
    "ff0a4d00020000000000000000010000000346000005feff189c9444bd0000";

// vm1's answer: flags c0 (response, rejected), the request's body echoed, 44 bytes (second capture, frame 18).
inline const char* kLlcAddLinkV2Reject =
    "222c00c05254005c0002000000000000000000000000ffff0a4d000200001202037612770000000000000000";

// vm2's Decline of a libsmcr SMC-R v1 Proposal (a third capture: libsmcr
// client under smc_synopt, kernel server): v1, 28 bytes, NOSMCDEV (rxe has
// no RoCE v1 GID), OS type nibble 0.
inline const char* kDeclineV1Kernel = "e2d4c3d904001c10f8f95254005c00020303000000000000e2d4c3d9";

// CDC from vm1 (first capture, frame 78): seqno 1, token 1 (the server's
// alert token), producer cursor wrap 1 count 0 (64 KiB written: the peer's
// whole RMB), write blocked.
inline const char* kCdcWriteBlocked =
    "fe2c000100000001000000010000000000000000000000008000000000000000000000000000000000000000";
// CDC from vm1 (frame 132): seqno 4, producer wrap 1 count 0x86a0 (100000
// bytes in all), consumer count 0x40 (the 64-byte digest read), peer done
// writing and connection closed.
inline const char* kCdcClosing =
    "fe2c00040000000100000001000086a0000000000000004000c0000000000000000000000000000000000000";

}  // namespace kernelvec
