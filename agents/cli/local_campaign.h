// One campaign on the local lab, the shared runner of `smclab demo` and the
// `smclab bench` commands: the lab for the spec's link model (locallab/: two
// agents on their own CPUs, TCP over a veth shaped like the model where the
// host allows it), the campaign through the orchestrator into the store
// with console progress, and everything stopped again. What the wire was
// goes into the campaign's notes and every run's facts, so a bench run in
// the store reads like any other campaign.
#pragma once

#include <optional>

#include <smcr/result.h>

#include <QString>

#include "campaign_console.h"
#include "orchestrator/campaign_spec.h"

namespace smclab::db {
class ResultStore;
}
namespace smclab::locallab {
class LocalLab;
}

namespace smclab::cli {

struct LocalCampaignOptions {
    const char* who = "smclab";  // prefix of the lines on stderr
    bool pin = true;             // one CPU per agent (smclab-agent --cpu)
};

struct LocalCampaign {
    ConsoleResult result;
    QString wireNote;  // what TCP and SMC ran over (WireRecord::note)
    qint64 elapsedMs = 0;
};

// Starts `lab` for the link model of spec's transportOptions "link"
// ("ideal" when absent), points spec's agents at it, adds the wire to its
// notes and says on stderr where the agents are.
smcr::Status startLocalLab(locallab::LocalLab& lab, orchestrator::CampaignSpec& spec, const char* who);

// `spec` without agents; its transportOptions "link" names the model
// ("ideal" when absent). An error only when the lab cannot start; a
// campaign that stops or fails comes back in `result`.
smcr::Result<LocalCampaign> runLocalCampaign(orchestrator::CampaignSpec spec, db::ResultStore& store,
                                             const LocalCampaignOptions& options);

// The bench commands' use of it: runs `spec`, prints why on stderr (prefixed
// with options.who) when the lab cannot start or the campaign did not
// finish and returns nullopt then, and names each failed column once.
std::optional<LocalCampaign> runBenchCampaign(const orchestrator::CampaignSpec& spec, db::ResultStore& store,
                                              const LocalCampaignOptions& options);

}  // namespace smclab::cli
