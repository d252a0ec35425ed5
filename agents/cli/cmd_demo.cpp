// smclab demo: the main job. Until the campaign runner lands it shows the
// parts that exist so far.
#include <cstdio>

#include <smcr/version.h>

#include "commands.h"

namespace smclab::cli {

int runDemo(const Args& args) {
    for (const auto& a : args) {
        if (a == "--help" || a == "-h") {
            std::printf("usage: smclab demo\n\nRuns the main job on this machine.\n");
            return kExitOk;
        }
    }
    std::printf("smclab %s demo\n", smcr::versionString());
    return kExitOk;
}

}  // namespace smclab::cli
