#include "local_campaign.h"

#include <cstdio>

#include <QElapsedTimer>

#include "local_lab.h"
#include "orchestrator/orchestrator.h"
#include "smclab/db/result_store.h"

namespace smclab::cli {

using namespace smclab::orchestrator;

smcr::Status startLocalLab(locallab::LocalLab& lab, CampaignSpec& spec, const char* who) {
    const QString link = spec.transportOptions.value(QLatin1String("link")).toString(QStringLiteral("ideal"));
    if (smcr::Status s = lab.start(link, 2); !s) return s;
    const locallab::LocalAgents& agents = lab.agents();
    spec.agents = {{agents.addresses().at(0), agents.addresses().at(1)}};
    // What every column ran over, in the notes the tables and reports print.
    spec.description += QStringLiteral(". Wire: ") + lab.wire().note;
    std::fprintf(stderr, "%s: agents: server %s, client %s (token in a private temp file)\n%s: wire: %s\n", who,
                 qPrintable(agents.addresses().at(0)), qPrintable(agents.addresses().at(1)), who,
                 qPrintable(lab.wire().note));
    std::fflush(stderr);
    return {};
}

smcr::Result<LocalCampaign> runLocalCampaign(CampaignSpec spec, db::ResultStore& store,
                                             const LocalCampaignOptions& options) {
    ensureCoreApplication();
    QElapsedTimer clock;
    clock.start();
    locallab::LocalLab lab;
    lab.setPinned(options.pin);
    if (smcr::Status s = startLocalLab(lab, spec, options.who); !s) return smcr::fail(s.error());
    const locallab::LocalAgents& agents = lab.agents();

    Orchestrator orchestrator(store);
    AgentConnectOptions connect;
    connect.token = agents.token();
    orchestrator.setConnectOptions(connect);
    orchestrator.setWire(lab.wire().toJson());
    // The orchestrator says up front which transports the agents lack; those
    // columns fail with the agent's reason and the others still run.
    LocalCampaign out;
    out.result = runCampaignOnConsole(orchestrator, [&] { return orchestrator.start(spec); });
    out.wireNote = lab.wire().note;
    lab.stop();
    out.elapsedMs = clock.elapsed();
    return out;
}

std::optional<LocalCampaign> runBenchCampaign(const CampaignSpec& spec, db::ResultStore& store,
                                              const LocalCampaignOptions& options) {
    auto ran = runLocalCampaign(spec, store, options);
    if (!ran) {
        std::fprintf(stderr, "%s: %s\n", options.who, ran.error().message.c_str());
        return std::nullopt;
    }
    if (ran->result.state != RunnerState::finished) {
        std::fprintf(stderr, "%s: %s\n", options.who,
                     qPrintable(ran->result.error.isEmpty() ? QStringLiteral("the campaign did not finish")
                                                            : ran->result.error));
        return std::nullopt;
    }
    printColumnFailures(ran->result, options.who);
    return std::move(ran).value();
}

}  // namespace smclab::cli
