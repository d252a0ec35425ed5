// smclab run: a preset or a campaign file on agent pairs, stored in the
// results database, then the cover-letter tables.
#include <algorithm>
#include <cstdio>

#include <unistd.h>

#include <QFile>
#include <QFileInfo>

#include "args.h"
#include "campaign_console.h"
#include "commands.h"
#include "lab_agents.h"
#include "lab_file.h"
#include "local_campaign.h"
#include "locallab/local_lab.h"
#include "orchestrator/campaign_json.h"
#include "orchestrator/preset_scaling.h"
#include "orchestrator/presets.h"
#include "orchestrator/size_text.h"
#include "orchestrator/tool_presets.h"
#include "smclab/db/database_path.h"
#include "smclab/db/result_store.h"

namespace smclab::cli {

// The lab library's hosts, lab file and agents (agents/lab).
using namespace smclab::lab;

namespace {

using namespace smclab::orchestrator;

constexpr int kExitInterrupted = 130;

void printRunHelp() {
    std::printf(
        "usage: smclab run PRESET|FILE --agents HOST:PORT,HOST:PORT --token-file F [options]\n"
        "       smclab run PRESET|FILE [--lab FILE] [--agents HOST,HOST]  (agents of a deployed lab)\n"
        "       smclab run PRESET|FILE [options]   (no lab file: two local agents, the local lab)\n"
        "       smclab run --resume ID --agents HOST:PORT,HOST:PORT --token-file F [options]\n"
        "\n"
        "Runs a campaign on agent pairs (server agent first, then client agent; more\n"
        "pairs may follow), stores every run in the results database, and prints the\n"
        "comparison tables in the cover-letter layout.\n"
        "\n"
        "With --lab (or with neither --agents nor --token-file, when the default lab\n"
        "file exists) the agents come from the lab file `smclab lab deploy` wrote: its\n"
        "hosts paired in file order (one host serves both sides), or the lab hosts that\n"
        "--agents names; each agent's port and token come from the lab.\n"
        "\n"
        "presets:\n");
    for (const PresetInfo& preset : presetList()) std::printf("  %-14s %s\n", preset.name, preset.summary);
    std::printf(
        "\n"
        "options:\n"
        "  --agents LIST          server,client[,server,client...] agent addresses\n"
        "  --token-file F         file holding the agents' bearer token\n"
        "  --lab FILE             lab file (default: $SMCLAB_LAB, else ~/.config/smclab/lab.json)\n"
        "  --resume ID            run the cells of campaign ID that are not done yet\n"
        "  --db PATH              results database, a file or postgresql://USER@HOST[:PORT]/DB (default: $SMCLAB_DB or "
        "%s)\n"
        "  -t SECONDS             measured time per cell (e.g. 2, 0.5, 500ms)\n"
        "  --warmup SECONDS       warm-up per cell, excluded from results\n"
        "  --sizes LIST           message sizes: 1,64,4K or a qperf loop 1:64K:*2\n"
        "  -r, --repetitions N    repetitions of every cell (presets: 3; tables show the median)\n"
        "  --on-agent-loss MODE   continue (default) or pause when an agent disappears\n"
        "  --repeat-busy N        run a cell again, up to N times, when it ran on a busy\n"
        "                         host (other processes or steal; the quietest run counts)\n"
        "  --quiet-wait SECONDS   pause this long before running a busy cell again\n"
        "  --name NAME            campaign name (default: the preset's or file's)\n"
        "  --quick                the seed presets at their smallest (1 s cells, 3 sizes, 1 repetition,\n"
        "                         small request counts); on 2 CPUs they scale down by themselves,\n"
        "                         and the notes say what was scaled\n"
        "  --tls                  connect with wss:// ; --ca-cert F trusts a PEM CA\n"
        "  --connect-timeout S    wait this long for each agent (default 10)\n"
        "\n"
        "Progress goes to stderr (a bar on a terminal); tables to stdout. Ctrl-C stops\n"
        "the runs in flight; the campaign can then be resumed with --resume ID.\n"
        "\n"
        "exit status:\n"
        "  0    every run of the campaign finished\n"
        "  1    the campaign could not run or was cut short: unreachable agent, wrong\n"
        "       token, database locked or unwritable, or paused after an agent was lost\n"
        "  2    usage: bad option, unknown preset, invalid campaign file\n"
        "  3    the campaign ended but some runs failed (stderr says how many and why;\n"
        "       --resume ID runs exactly those again); the tables show '-' for them;\n"
        "       or some cell of an SMC column ran over TCP, not SMC-R (marked [TCP])\n"
        "  130  interrupted (Ctrl-C); resumable with --resume ID\n",
        qPrintable(db::defaultDatabasePath()));
}

int usage(const std::string& message) {
    std::fprintf(stderr, "smclab run: %s\n(see smclab run --help)\n", message.c_str());
    return kExitUsage;
}

int failure(const QString& message) {
    std::fprintf(stderr, "smclab run: %s\n", qPrintable(message));
    return kExitFailure;
}

// The command line as given.
struct RunOptions {
    QString target, agentsText, tokenFile, dbPath, sizesText, name, caCert, policyText, labArg;
    std::optional<int64_t> durationMs, warmupMs, resumeId, repetitions, repeatBusy, quietWaitMs;
    int connectTimeoutMs = 10'000;
    bool tls = false;
    bool quick = false;
};

// nullopt: go on; a value: exit with it (help printed, or a usage error).
std::optional<int> parseRunOptions(const Args& args, RunOptions& o) {
    ArgCursor cursor(args);
    while (!cursor.done()) {
        if (cursor.takeFlag("--help") || cursor.takeFlag("-h")) {
            printRunHelp();
            return kExitOk;
        }
        if (auto v1 = cursor.takeValue("--agents")) {
            o.agentsText = QString::fromStdString(*v1);
        } else if (auto v2 = cursor.takeValue("--token-file")) {
            o.tokenFile = QString::fromStdString(*v2);
        } else if (auto vl = cursor.takeValue("--lab")) {
            o.labArg = QString::fromStdString(*vl);
        } else if (auto v3 = cursor.takeValue("--db")) {
            o.dbPath = QString::fromStdString(*v3);
        } else if (auto v4 = cursor.takeValue("--resume")) {
            o.resumeId = parseInt(*v4);
            if (!o.resumeId || *o.resumeId <= 0) return usage("--resume: '" + *v4 + "' is not a campaign id");
        } else if (auto v5 = cursor.takeValue("-t")) {
            o.durationMs = parseDurationText(QString::fromStdString(*v5));
            if (!o.durationMs || *o.durationMs < 100)
                return usage("-t: '" + *v5 + "' is not a duration of at least 0.1 s");
        } else if (auto v6 = cursor.takeValue("--warmup")) {
            o.warmupMs = parseDurationText(QString::fromStdString(*v6));
            if (!o.warmupMs) return usage("--warmup: '" + *v6 + "' is not a duration");
        } else if (auto v7 = cursor.takeValue("--sizes")) {
            o.sizesText = QString::fromStdString(*v7);
        } else if (auto v8 = cursor.takeValue("--repetitions")) {
            o.repetitions = parseInt(*v8);
            if (!o.repetitions) return usage("--repetitions: '" + *v8 + "' is not a number");
        } else if (auto v9 = cursor.takeValue("-r")) {
            o.repetitions = parseInt(*v9);
            if (!o.repetitions) return usage("-r: '" + *v9 + "' is not a number");
        } else if (auto vb = cursor.takeValue("--repeat-busy")) {
            o.repeatBusy = parseInt(*vb);
            if (!o.repeatBusy) return usage("--repeat-busy: '" + *vb + "' is not a number");
        } else if (auto vw = cursor.takeValue("--quiet-wait")) {
            o.quietWaitMs = parseDurationText(QString::fromStdString(*vw));
            if (!o.quietWaitMs) return usage("--quiet-wait: '" + *vw + "' is not a duration");
        } else if (auto v10 = cursor.takeValue("--on-agent-loss")) {
            o.policyText = QString::fromStdString(*v10);
        } else if (auto v11 = cursor.takeValue("--name")) {
            o.name = QString::fromStdString(*v11);
        } else if (auto v12 = cursor.takeValue("--ca-cert")) {
            o.caCert = QString::fromStdString(*v12);
        } else if (auto v13 = cursor.takeValue("--connect-timeout")) {
            auto ms = parseDurationText(QString::fromStdString(*v13));
            if (!ms || *ms < 100) return usage("--connect-timeout: '" + *v13 + "' is not a duration");
            o.connectTimeoutMs = static_cast<int>(*ms);
        } else if (cursor.takeFlag("--tls")) {
            o.tls = true;
        } else if (cursor.takeFlag("--quick")) {
            o.quick = true;
        } else if (!cursor.peek().empty() && cursor.peek()[0] == '-') {
            return usage(cursor.unknownOption());
        } else if (o.target.isEmpty()) {
            o.target = QString::fromStdString(cursor.next());
        } else {
            return usage("unexpected argument '" + cursor.peek() + "'");
        }
        if (!cursor.error().empty()) return usage(cursor.error());
    }
    if (!cursor.error().empty()) return usage(cursor.error());
    if (o.target.isEmpty() && !o.resumeId) return usage("name a preset or a campaign file (or --resume ID)");
    if (!o.target.isEmpty() && o.resumeId)
        return usage("--resume takes the campaign from the database; drop '" + o.target.toStdString() + "'");
    if (o.resumeId && (o.durationMs || o.warmupMs || o.repetitions || o.repeatBusy || o.quietWaitMs ||
                       !o.sizesText.isEmpty() || !o.name.isEmpty())) {
        return usage("--resume runs the stored campaign as planned; -t, --warmup, --sizes, -r and --name do not apply");
    }
    return std::nullopt;
}

// Where the campaign runs: a lab file's agents, --agents with a token, or
// the local lab; and what a resume needs to reach them again.
struct Reach {
    bool useLab = false;
    bool localLab = false;
    std::vector<AgentPair> agents;
    QString token;
    QHash<QString, QString> tokenByAddress;
    QHash<QString, QString> nameByAddress;
    QString resumeArgs;  // "--lab FILE --db PATH", for the hints
};

std::optional<int> resolveReach(const RunOptions& o, Reach& r) {
    // A deployed lab (smclab lab deploy) stands in for --agents and --token-file;
    // with neither and no lab file, the local lab (two agents on this host), as smclab demo.
    const QString labPath = resolveLabPath(o.labArg);
    r.useLab = !o.labArg.isEmpty() || (o.agentsText.isEmpty() && o.tokenFile.isEmpty() && QFileInfo::exists(labPath));
    r.localLab = !r.useLab && o.agentsText.isEmpty() && o.tokenFile.isEmpty() && !o.resumeId;
    if (!r.useLab && !r.localLab && o.agentsText.isEmpty()) {
        return usage(o.resumeId ? "--resume needs --agents (server and client HOST:PORT) or --lab FILE"
                                : "--agents is required with --token-file (server and client HOST:PORT); "
                                  "without both, the campaign runs on the local lab");
    }
    if (!r.useLab && !r.localLab && o.tokenFile.isEmpty()) return usage("--token-file is required");

    const QStringList agentList = o.agentsText.split(QLatin1Char(','), Qt::SkipEmptyParts);
    if (!r.useLab && !r.localLab) {
        if (agentList.size() < 2 || agentList.size() % 2 != 0)
            return usage("--agents needs pairs: SERVER_HOST:PORT,CLIENT_HOST:PORT[,...]");
        for (int i = 0; i + 1 < agentList.size(); i += 2)
            r.agents.push_back({agentList[i].trimmed(), agentList[i + 1].trimmed()});
        if (const auto errors = validateAgents(r.agents); !errors.empty())
            return usage(joinErrors(errors).toStdString());
    }
    if (!o.tokenFile.isEmpty()) {
        QString why;
        r.token = readTokenFile(o.tokenFile, QStringLiteral("--token-file"), &why);
        if (r.token.isEmpty()) return failure(why);
    }
    if (r.useLab) {
        QString why;
        const auto lab = loadLab(labPath, &why);
        if (!lab) return failure(why);
        auto resolved = resolveCampaignAgents(*lab, labPath, agentList, r.token, &why);
        if (!resolved) return failure(why);
        r.agents = resolved->pairs;
        r.tokenByAddress = resolved->tokenByAddress;
        r.nameByAddress = resolved->nameByAddress;
        if (const auto errors = validateAgents(r.agents); !errors.empty())
            return usage(joinErrors(errors).toStdString());
    }
    QStringList reachArgs;
    if (r.useLab) reachArgs << QStringLiteral("--lab") << labPath;
    if (!o.agentsText.isEmpty()) reachArgs << QStringLiteral("--agents") << o.agentsText;
    if (!o.tokenFile.isEmpty()) reachArgs << QStringLiteral("--token-file") << o.tokenFile;
    if (!o.dbPath.isEmpty()) reachArgs << QStringLiteral("--db") << o.dbPath;
    r.resumeArgs = reachArgs.join(QLatin1Char(' '));
    return std::nullopt;
}

// The preset or campaign file with the command line's overrides.
std::optional<int> buildSpec(const RunOptions& o, const Reach& r, CampaignSpec& spec) {
    if (auto preset = presetCampaign(o.target)) {
        spec = *preset;
    } else if (QFileInfo::exists(o.target)) {
        auto loaded = loadCampaignFile(o.target);
        if (!loaded) {
            std::fprintf(stderr, "smclab run: %s\n", loaded.error().message.c_str());
            return kExitUsage;
        }
        spec = *loaded;
    } else {
        return usage("unknown preset '" + o.target.toStdString() + "' and no such campaign file (presets: " +
                     presetNames().join(QStringLiteral(", ")).toStdString() + ")");
    }
    if (!o.name.isEmpty()) spec.name = o.name;
    if (o.durationMs) {
        spec.durationMs = static_cast<int>(*o.durationMs);
        // A shortened run keeps a proportionate warm-up.
        if (!o.warmupMs) spec.warmupMs = std::min<int>(spec.warmupMs, spec.durationMs / 5);
    }
    if (o.warmupMs) spec.warmupMs = static_cast<int>(*o.warmupMs);
    if (o.repetitions) spec.repetitions = static_cast<int>(*o.repetitions);
    if (o.repeatBusy)
        spec.quietHost.repeatBusy = static_cast<int>(std::clamp<int64_t>(*o.repeatBusy, -1, kMaxRepeatBusy + 1));
    if (o.quietWaitMs)
        spec.quietHost.waitMs = static_cast<int>(std::clamp<int64_t>(*o.quietWaitMs, -1, kMaxQuietWaitMs + 1));
    if (!o.sizesText.isEmpty()) {
        QString error;
        auto sizes = parseSizeListText(o.sizesText, &error);
        if (!sizes) return usage("--sizes: " + error.toStdString());
        spec.sizes = *sizes;
        for (WorkloadSpec& workload : spec.workloads) workload.sizes.clear();
    }
    if (!o.policyText.isEmpty()) {
        if (o.policyText == QLatin1String("continue"))
            spec.onAgentLoss = AgentLossPolicy::continueCampaign;
        else if (o.policyText == QLatin1String("pause"))
            spec.onAgentLoss = AgentLossPolicy::pause;
        else
            return usage("--on-agent-loss: must be continue or pause");
    }
    if (!r.localLab) spec.agents = r.agents;
    if (isToolPreset(spec.preset)) {
        bool oneHost = r.localLab;
        for (const AgentPair& pair : spec.agents) {
            oneHost =
                oneHost || pair.server.section(QLatin1Char(':'), 0, -2) == pair.client.section(QLatin1Char(':'), 0, -2);
        }
        const HostScale host{static_cast<int>(::sysconf(_SC_NPROCESSORS_ONLN)), o.quick, oneHost};
        for (const QString& note : scaleToolPreset(spec, host)) std::fprintf(stderr, "scaled: %s\n", qPrintable(note));
    } else if (o.quick) {
        return usage(
            "--quick applies to the seed presets (seed000-qperf, seed002-nginx, seed003-shortconn, seed004-redis)");
    }
    if (r.localLab) spec.agents = {{QStringLiteral("127.0.0.1:1"), QStringLiteral("127.0.0.1:2")}};  // replaced later
    if (const auto errors = validateCampaign(spec); !errors.empty()) {
        std::fprintf(stderr, "smclab run: invalid campaign:\n%s\n", qPrintable(joinErrors(errors)));
        return kExitUsage;
    }
    return std::nullopt;
}

// What the console run ended in: the tables, or how to resume.
int reportOutcome(const ConsoleResult& result, Orchestrator& orchestrator, db::ResultStore& store,
                  const QString& resumeArgs) {
    const auto id = static_cast<long long>(result.campaignId);
    switch (result.state) {
        case RunnerState::finished: {
            const Progress progress = orchestrator.progress();
            std::fprintf(stderr, "campaign %lld done: %d cells ran, %d failed; database %s\n", id, progress.doneCells,
                         result.failedCells, qPrintable(store.path()));
            for (const auto& [column, error] : result.failuresByColumn)
                std::fprintf(stderr, "  failed in %s: %s\n", qPrintable(column), qPrintable(error));
            if (orchestrator.spec().repetitions > 1)
                std::fprintf(stderr,
                             "  values are medians of %d repetitions (intervals in ==== Confidence ====); all formats: "
                             "smclab report %lld --format md\n",
                             orchestrator.spec().repetitions, id);
            QStringList overTcp;
            if (!printCampaignTables(store, result.campaignId, stdout, &overTcp)) return kExitFailure;
            const int overTcpExit = reportOverTcpCells(overTcp, "smclab run");
            if (result.failedCells == 0) return overTcpExit;
            // A campaign with holes is not a success: scripts that chain
            // `run` and `report` must see it (the tables show '-').
            std::fprintf(stderr, "smclab run: %s; re-run them with:\n  smclab run --resume %lld %s\n",
                         qPrintable(failedRunsText(result.failedCells, progress.totalCells)), id,
                         qPrintable(resumeArgs));
            return kExitRunsFailed;
        }
        case RunnerState::stopped:
            std::fprintf(stderr,
                         "smclab run: stopped; campaign %lld keeps its finished runs. Resume with:\n"
                         "  smclab run --resume %lld %s\n",
                         id, id, qPrintable(resumeArgs));
            return kExitInterrupted;
        case RunnerState::paused:
            std::fprintf(stderr,
                         "smclab run: an agent was lost; campaign %lld paused (onAgentLoss: pause). Resume with:\n"
                         "  smclab run --resume %lld %s\n",
                         id, id, qPrintable(resumeArgs));
            return kExitFailure;
        default:
            std::fprintf(stderr, "smclab run: %s\n",
                         qPrintable(result.error.isEmpty() ? QStringLiteral("failed") : result.error));
            if (result.campaignId > 0)
                // A database that went away (server restarted, network) keeps the
                // runs it committed; the same command line picks up the rest.
                std::fprintf(
                    stderr,
                    "smclab run: campaign %lld keeps its finished runs; once the cause is fixed, resume with:\n"
                    "  smclab run --resume %lld %s\n",
                    id, id, qPrintable(resumeArgs));
            return kExitFailure;
    }
}

}  // namespace

int runRun(const Args& args) {
    RunOptions o;
    if (auto exit = parseRunOptions(args, o)) return *exit;
    Reach reach;
    if (auto exit = resolveReach(o, reach)) return *exit;
    ensureCoreApplication();
    CampaignSpec spec;
    if (!o.resumeId) {
        if (auto exit = buildSpec(o, reach, spec)) return *exit;
    }
    auto store = db::ResultStore::open(db::resolveDatabasePath(o.dbPath));
    if (!store) {
        std::fprintf(stderr, "smclab run: %s\n", store.error().message.c_str());
        return kExitFailure;
    }
    locallab::LocalLab lab;
    if (reach.localLab) {
        if (smcr::Status s = startLocalLab(lab, spec, "smclab run"); !s) {
            std::fprintf(stderr, "smclab run: the local lab did not start: %s\n", s.error().message.c_str());
            return kExitFailure;
        }
        reach.agents = spec.agents;
        reach.token = lab.agents().token();
    }

    Orchestrator orchestrator(**store);
    if (reach.localLab) orchestrator.setWire(lab.wire().toJson());
    AgentConnectOptions options;
    options.token = reach.token;
    options.tls = o.tls;
    options.caCertFile = o.caCert;
    options.connectTimeoutMs = o.connectTimeoutMs;
    orchestrator.setConnectOptions(options);
    orchestrator.setAgentTokens(reach.tokenByAddress);
    orchestrator.setAgentNames(reach.nameByAddress);
    const ConsoleResult result = runCampaignOnConsole(orchestrator, [&]() -> smcr::Status {
        if (o.resumeId) return orchestrator.resume(*o.resumeId, reach.agents);
        return orchestrator.start(spec);
    });
    return reportOutcome(result, orchestrator, **store, reach.resumeArgs);
}

}  // namespace smclab::cli
