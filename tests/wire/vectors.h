// Known wire vectors written by hand from the tables in RFC 7609 and
// smc-protocol.md sections 1-3. Offsets are cited next to each field.
// Each vector is a hex string (whitespace ignored) turned into bytes by hex().
#pragma once

#include <cctype>
#include <cstdint>
#include <string>
#include <vector>

namespace wirevec {

inline std::vector<uint8_t> hex(const char* text) {
    std::vector<uint8_t> out;
    int high = -1;
    for (const char* p = text; *p != '\0'; ++p) {
        const int c = std::tolower(static_cast<unsigned char>(*p));
        int nibble = -1;
        if (c >= '0' && c <= '9') nibble = c - '0';
        if (c >= 'a' && c <= 'f') nibble = c - 'a' + 10;
        if (nibble < 0) continue;
        if (high < 0) {
            high = nibble;
        } else {
            out.push_back(static_cast<uint8_t>(high << 4 | nibble));
            high = -1;
        }
    }
    return out;
}

// Linux-style SMC-Rv1 IPv4 Proposal, 92 bytes (section 1.3).
inline const char* kProposalV1 =
    "e2d4c3d9"                                      // 0 eyecatcher SMCR
    "01"                                            // 4 type Proposal
    "005c"                                          // 5 length 92
    "18"                                            // 7 version 1, typev2 none (2<<2), typev1 R (0)
    "1234020000000001"                              // 8 peer id: 2 random bytes + MAC 02:00:00:00:00:01
    "fe800000000000000200 00fffe000001"             // 16 GID fe80::200:ff:fe00:1
    "020000000001"                                  // 32 MAC
    "0028"                                          // 38 ip area offset 40
    "0000000000000000 0000 0000 000000 0000000000"  // 40 ISM GID, CHID, v2 ext offset, OUI, options
    "0000000000000000000000000000000000000000"      // 60 reserved(20)
    "c0a80100"                                      // 80 IPv4 subnet 192.168.1.0
    "18"                                            // 84 prefix length 24
    "0000"                                          // 85 reserved
    "00"                                            // 87 IPv6 prefix count 0
    "e2d4c3d9";                                     // 88 trailer

// SMC-Rv1 + SMC-Rv2 Proposal with one UEID, 164 bytes = 132 + 32 (section 1.3).
inline const char* kProposalV2 =
    "e2d4c3d9 01 00a4"                                                  // 0 eyecatcher, type 1, length 164
    "20"                                                                // 7 version 2, typev2 R (0), typev1 R (0)
    "1234020000000001"                                                  // 8 peer id
    "fe800000000000000200 00fffe000001"                                 // 16 GID
    "020000000001"                                                      // 32 MAC
    "0028"                                                              // 38 ip area offset 40
    "0000000000000000"                                                  // 40 ISM GID
    "0000"                                                              // 48 ISM CHID
    "0024"                                                              // 50 v2 ext offset 36 (from 52 -> 88)
    "000000 0000000000"                                                 // 52 vendor OUI, 55 vendor options
    "0000000000000000000000000000000000000000"                          // 60 reserved
    "c0a80100 18 0000 00"                                               // 80 IP prefix area: 192.168.1.0/24, no IPv6
    "01"                                                                // 88 +0 UEID count 1
    "00"                                                                // 89 +1 ISMv2 GID count
    "00"                                                                // 90 +2 reserved
    "10"                                                                // 91 +3 release 1 (v2.1), SEID flag 0
    "0000"                                                              // 92 +4 reserved
    "0000"                                                              // 94 +6 SMC-Dv2 ext offset
    "00000000000000000000ffffc0a8010a"                                  // 96 +8 RoCEv2 GID ::ffff:192.168.1.10
    "ff"                                                                // 112 +24 max conns 255
    "02"                                                                // 113 +25 max links 2
    "0000"                                                              // 114 +26 feature mask
    "000000000000000000000000"                                          // 116 +28 reserved(12)
    "534d434c41422d55454944202020202020202020202020202020202020202020"  // 128 +40 UEID "SMCLAB-UEID" blank
                                                                        // padded
    "e2d4c3d9";                                                         // 160 trailer

// SMC-R v1 Accept, first contact, 68 bytes (section 1.4).
inline const char* kAcceptV1 =
    "e2d4c3d9 02 0044"                   // 0 eyecatcher, type Accept, length 68
    "18"                                 // 7 version 1, first contact (bit 3), typev1 R
    "abcd020000000002"                   // 8 peer id
    "fe800000000000000200 00fffe000002"  // 16 GID
    "020000000002"                       // 32 MAC
    "000123"                             // 38 QPN 0x123
    "00001234"                           // 41 RMB rkey
    "01"                                 // 45 RMBE index 1
    "00000005"                           // 46 RMBE alert token 5
    "33"                                 // 50 RMBE size 3 (128 KiB), QP MTU 3 (1024)
    "00"                                 // 51 reserved (experimental init credits)
    "00007f0012345000"                   // 52 RMB virtual address
    "00"                                 // 60 reserved
    "00abcd"                             // 61 initial PSN
    "e2d4c3d9";                          // 64 trailer

// SMC-R v2 Accept with the first-contact extension, 160 bytes (section 1.4).
inline const char* kAcceptV2FirstContact =
    "e2d4c3d9 02 00a0 28"               // 0 eyecatcher, Accept, length 160, version 2 + first contact
    "abcd020000000002"                  // 8 peer id
    "00000000000000000000ffffc0a8010b"  // 16 RoCEv2 GID ::ffff:192.168.1.11
    "020000000002"                      // 32 MAC
    "000456 0000beef 01 00000007"       // 38 QPN, 41 rkey, 45 index, 46 token
    "45"                                // 50 size 4 (256 KiB), MTU 5 (4096)
    "00"                                // 51
    "0000000000100000 00 000001"        // 52 vaddr, 60 rsvd, 61 PSN
    "534d434c41422d55454944202020202020202020202020202020202020202020"  // 64 EID (32)
    "0000000000000000"                                                  // 96 reserved(8)
    "80"                                                                // 104 FCE +0 v2 direct
    "21"                                                                // 105 +1 OS Linux (2), release 1
    "0000"                                                              // 106 +2 reserved
    "686f73742d612020202020202020202020202020202020202020202020202020"  // 108 +4 hostname "host-a"
    "ff 02 0000"        // 140 +36 max conns, +37 max links, +38 feature mask
    "00000000"          // 144 +40 vendor options
    "0000000000000000"  // 148 +44 reserved(8)
    "e2d4c3d9";         // 156 trailer

// SMC-R v2 Confirm, first contact, with a 2-entry GID list: 196 bytes (section 1.4).
inline const char* kConfirmV2GidList =
    "e2d4c3d9 03 00c4 28"                // 0 eyecatcher, Confirm, length 196, version 2 + first contact
    "1234020000000001"                   // 8 peer id
    "00000000000000000000ffffc0a8010a"   // 16 GID
    "020000000001"                       // 32 MAC
    "000789 0000cafe 01 00000009 44 00"  // 38 QPN, 41 rkey, 45 idx, 46 token, 50 size/MTU, 51
    "0000000000200000 00 000002"         // 52 vaddr, 60 rsvd, 61 PSN
    "534d434c41422d55454944202020202020202020202020202020202020202020"  // 64 EID
    "0000000000000000"                                                  // 96 reserved
    "00 21 0000"                                                        // 104 FCE: not direct, Linux release 1
    "686f73742d622020202020202020202020202020202020202020202020202020"  // 108 hostname "host-b"
    "ff 02 0000 00000000 0000000000000000"                              // 140 max conns/links, mask, vendor, reserved
    "02 000000"                                                         // 156 GID list count 2, reserved(3)
    "00000000000000000000ffffc0a8010a"                                  // 160 GID 0
    "00000000000000000000ffffc0a8020a"                                  // 176 GID 1
    "e2d4c3d9";                                                         // 192 trailer

// v1 Decline, 28 bytes (section 1.5): reason NOSMCDEV.
inline const char* kDeclineV1 =
    "e2d4c3d9 04 001c 10"  // 0 eyecatcher, Decline, length 28, version 1
    "1234020000000001"     // 8 peer id
    "03030000"             // 16 peer diagnosis NOSMCDEV
    "00 000000"            // 20 OS type, reserved
    "e2d4c3d9";            // 24 trailer

// v2 Decline, 44 bytes, out of sync (section 1.5): reason SYNCERR, OS Linux.
inline const char* kDeclineV2 =
    "e2d4c3d9 04 002c 28"                  // 0 eyecatcher, Decline, length 44, version 2 + out-of-sync (bit 3)
    "abcd020000000002"                     // 8 peer id
    "04000000"                             // 16 SYNCERR
    "20 000000"                            // 20 OS type 2 (Linux)
    "03030008 00000000 00000000 00000000"  // 24 additional diagnosis codes
    "e2d4c3d9";                            // 40 trailer

// LLC CONFIRM_LINK request (section 2): flags 0x03 no RMBE eyecatcher.
inline const char* kLlcConfirmLink =
    "01 2c 00 03"                        // 0 type, 1 length 44, 2 reserved, 3 flags
    "020000000002"                       // 4 sender MAC
    "fe800000000000000200 00fffe000002"  // 10 GID
    "000123"                             // 26 QPN
    "01"                                 // 29 link number
    "00000a01"                           // 30 link UID
    "02"                                 // 34 max links
    "00"                                 // 35 max conns
    "0000000000000000";                  // 36 reserved

// ADD_LINK response rejected with reason 1 (no alternate path).
inline const char* kLlcAddLinkReject =
    "02 2c 01 c0"                        // 0 type, length, byte 2 reject reason 1, flags resp|rejected
    "020000000001 0000"                  // 4 MAC, 10 reserved
    "fe800000000000000200 00fffe000001"  // 12 GID
    "000321 02 03 00beef"                // 28 QPN, 31 link num, 32 MTU 3, 33 PSN
    "00 00000000000000";                 // 36 init credits (experimental), 37 reserved

inline const char* kLlcAddLinkCont =
    "03 2c 00 00"                         // header
    "02 01 0000"                          // 4 link num, 5 rkeys remaining, 6 reserved
    "00001111 00002222 0000000000100000"  // 8 rkey, new rkey, new vaddr
    "00003333 00004444 0000000000200000"  // 24 second pair
    "00000000";                           // 40 reserved

inline const char* kLlcDeleteLink =
    "04 2c 00 e0"                                                              // flags resp | all links | orderly
    "01"                                                                       // 4 link number
    "00020000"                                                                 // 5 reason OPERATOR_TERM
    "0000000000000000000000000000000000000000000000000000000000000000000000";  // 9 reserved(35)

inline const char* kLlcConfirmRkey =
    "06 2c 00 80"                   // response
    "01 00005555 00007f0000001000"  // 4 entry 0: 1 more entry, rkey, vaddr
    "02 00006666 00007f0000002000"  // 17 entry 1: link 2
    "00 00000000 0000000000000000"  // 30 entry 2 unused
    "00";                           // 43 reserved

inline const char* kLlcConfirmRkeyCont =
    "08 2c 00 00"
    "01"                             // 4 num rkeys
    "01 00007777 0000000000003000"   // 5
    "00 00000000 0000000000000000"   // 18
    "00 00000000 0000000000000000";  // 31

inline const char* kLlcTestLink =
    "07 2c 00 00"
    "000102030405060708090a0b0c0d0e0f"                   // 4 user data
    "000000000000000000000000000000000000000000000000";  // 20 reserved(24)

inline const char* kLlcDeleteRkey =
    "09 2c 00 80"
    "02 40 0000"  // 4 count 2, 5 error mask (entry 1 failed), 6 reserved
    "00001111 00002222 00000000 00000000 00000000 00000000 00000000 00000000"  // 8 rkeys
    "00000000";                                                                // 40 reserved

// EXPERIMENTAL ANNOUNCE_CREDITS (seed 004): byte 4 credits, 39 reserved.
inline const char* kLlcAnnounceCredits =
    "0a 2c 00 80 10"
    "000000000000000000000000000000000000000000000000000000000000000000000000000000";

// CDC with flags and a wrapped producer cursor (section 3).
inline const char* kCdc =
    "fe 2c"                                // 0 type, 1 length 44
    "0102"                                 // 2 seqno 258
    "00000005"                             // 4 alert token 5
    "0000 0003 00001000"                   // 8 producer cursor: rsvd, wrap 3, count 4096
    "0000 0002 0001f000"                   // 16 consumer cursor: wrap 2, count 126976
    "a0"                                   // 24 write blocked | urgent present
    "80"                                   // 25 peer done writing
    "00"                                   // 26 credits (experimental)
    "0000000000000000000000000000000000";  // 27 reserved(17)

}  // namespace wirevec
