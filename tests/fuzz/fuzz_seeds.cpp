// Writes the known wire vectors (tests/wire/vectors.h) and the kernel's own
// messages (tests/wire/kernel_vectors.h) as the fuzzers' seed corpus.
#include <cstdio>
#include <string>

#include "kernel_vectors.h"
#include "vectors.h"

namespace {

bool writeSeed(const std::string& dir, const char* name, const char* hexText) {
    const auto bytes = wirevec::hex(hexText);
    const std::string path = dir + "/seed_" + name;
    FILE* file = std::fopen(path.c_str(), "wb");
    if (file == nullptr) return false;
    const bool ok = std::fwrite(bytes.data(), 1, bytes.size(), file) == bytes.size();
    return std::fclose(file) == 0 && ok;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: fuzz_seeds CORPUS_ROOT (with clc/ llc/ cdc/ clc_v2/ llc_v2/ inside)\n");
        return 2;
    }
    const std::string root = argv[1];
    bool ok = true;
    ok &= writeSeed(root + "/clc", "proposal_v1", wirevec::kProposalV1);
    ok &= writeSeed(root + "/clc", "proposal_v2", wirevec::kProposalV2);
    ok &= writeSeed(root + "/clc", "accept_v1", wirevec::kAcceptV1);
    ok &= writeSeed(root + "/clc", "accept_v2_fc", wirevec::kAcceptV2FirstContact);
    ok &= writeSeed(root + "/clc", "confirm_v2_gids", wirevec::kConfirmV2GidList);
    ok &= writeSeed(root + "/clc", "decline_v1", wirevec::kDeclineV1);
    ok &= writeSeed(root + "/clc", "decline_v2", wirevec::kDeclineV2);
    ok &= writeSeed(root + "/llc", "confirm_link", wirevec::kLlcConfirmLink);
    ok &= writeSeed(root + "/llc", "add_link", wirevec::kLlcAddLinkReject);
    ok &= writeSeed(root + "/llc", "add_link_cont", wirevec::kLlcAddLinkCont);
    ok &= writeSeed(root + "/llc", "delete_link", wirevec::kLlcDeleteLink);
    ok &= writeSeed(root + "/llc", "confirm_rkey", wirevec::kLlcConfirmRkey);
    ok &= writeSeed(root + "/llc", "confirm_rkey_cont", wirevec::kLlcConfirmRkeyCont);
    ok &= writeSeed(root + "/llc", "test_link", wirevec::kLlcTestLink);
    ok &= writeSeed(root + "/llc", "delete_rkey", wirevec::kLlcDeleteRkey);
    ok &= writeSeed(root + "/llc", "announce_credits", wirevec::kLlcAnnounceCredits);
    ok &= writeSeed(root + "/cdc", "cdc", wirevec::kCdc);
    // The kernel's SMC-Rv2 messages, for the plain and the v2-only targets.
    const struct {
        const char* name;
        const char* hex;
    } kernelClc[] = {{"kernel_proposal_v2", kernelvec::kProposalV2Only},
                     {"kernel_accept_v2_fc", kernelvec::kAcceptV2FirstContactKernel},
                     {"kernel_confirm_v2_gids", kernelvec::kConfirmV2GidListKernel},
                     {"kernel_accept_v2", kernelvec::kAcceptV2ReuseKernel}},
      kernelLlc[] = {{"kernel_confirm_link_v2", kernelvec::kLlcConfirmLinkV2Request},
                     {"kernel_add_link_v2", kernelvec::kLlcAddLinkV2Request},
                     {"kernel_add_link_v2_reject", kernelvec::kLlcAddLinkV2Reject},
                     {"kernel_confirm_rkey_v2", kernelvec::kLlcConfirmRkeyV2Request},
                     {"kernel_delete_rkey_v2", kernelvec::kLlcDeleteRkeyV2Request},
                     {"kernel_test_link_v2", kernelvec::kLlcTestLinkV2Response}};
    for (const auto& seed : kernelClc) {
        ok &= writeSeed(root + "/clc", seed.name, seed.hex);
        ok &= writeSeed(root + "/clc_v2", seed.name, seed.hex);
    }
    for (const auto& seed : kernelLlc) {
        ok &= writeSeed(root + "/llc", seed.name, seed.hex);
        ok &= writeSeed(root + "/llc_v2", seed.name, seed.hex);
    }
    ok &= writeSeed(root + "/cdc", "kernel_cdc_closing", kernelvec::kCdcClosing);
    if (!ok) std::fprintf(stderr, "fuzz_seeds: cannot write seeds under %s\n", root.c_str());
    return ok ? 0 : 1;
}
