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
        "       --resume ID runs exactly those again); the tables show '-' for them\n"
        "  130  interrupted (Ctrl-C); resumable with --resume ID\n",
        qPrintable(db::defaultDatabasePath()));
}

int usage(const std::string& message) {
    std::fprintf(stderr, "smclab run: %s\n(see smclab run --help)\n", message.c_str());
    return kExitUsage;
}

}  // namespace

int runRun(const Args& args) {
    ArgCursor cursor(args);
    QString target, agentsText, tokenFile, dbPath, sizesText, name, caCert, policyText, labArg;
    std::optional<int64_t> durationMs, warmupMs, resumeId, repetitions, repeatBusy, quietWaitMs;
    int connectTimeoutMs = 10'000;
    bool tls = false;
    bool quick = false;
    while (!cursor.done()) {
        if (cursor.takeFlag("--help") || cursor.takeFlag("-h")) {
            printRunHelp();
            return kExitOk;
        }
        if (auto v1 = cursor.takeValue("--agents")) {
            agentsText = QString::fromStdString(*v1);
        } else if (auto v2 = cursor.takeValue("--token-file")) {
            tokenFile = QString::fromStdString(*v2);
        } else if (auto vl = cursor.takeValue("--lab")) {
            labArg = QString::fromStdString(*vl);
        } else if (auto v3 = cursor.takeValue("--db")) {
            dbPath = QString::fromStdString(*v3);
        } else if (auto v4 = cursor.takeValue("--resume")) {
            resumeId = parseInt(*v4);
            if (!resumeId || *resumeId <= 0) return usage("--resume: '" + *v4 + "' is not a campaign id");
        } else if (auto v5 = cursor.takeValue("-t")) {
            durationMs = parseDurationText(QString::fromStdString(*v5));
            if (!durationMs || *durationMs < 100) return usage("-t: '" + *v5 + "' is not a duration of at least 0.1 s");
        } else if (auto v6 = cursor.takeValue("--warmup")) {
            warmupMs = parseDurationText(QString::fromStdString(*v6));
            if (!warmupMs) return usage("--warmup: '" + *v6 + "' is not a duration");
        } else if (auto v7 = cursor.takeValue("--sizes")) {
            sizesText = QString::fromStdString(*v7);
        } else if (auto v8 = cursor.takeValue("--repetitions")) {
            repetitions = parseInt(*v8);
            if (!repetitions) return usage("--repetitions: '" + *v8 + "' is not a number");
        } else if (auto v9 = cursor.takeValue("-r")) {
            repetitions = parseInt(*v9);
            if (!repetitions) return usage("-r: '" + *v9 + "' is not a number");
        } else if (auto vb = cursor.takeValue("--repeat-busy")) {
            repeatBusy = parseInt(*vb);
            if (!repeatBusy) return usage("--repeat-busy: '" + *vb + "' is not a number");
        } else if (auto vw = cursor.takeValue("--quiet-wait")) {
            quietWaitMs = parseDurationText(QString::fromStdString(*vw));
            if (!quietWaitMs) return usage("--quiet-wait: '" + *vw + "' is not a duration");
        } else if (auto v10 = cursor.takeValue("--on-agent-loss")) {
            policyText = QString::fromStdString(*v10);
        } else if (auto v11 = cursor.takeValue("--name")) {
            name = QString::fromStdString(*v11);
        } else if (auto v12 = cursor.takeValue("--ca-cert")) {
            caCert = QString::fromStdString(*v12);
        } else if (auto v13 = cursor.takeValue("--connect-timeout")) {
            auto ms = parseDurationText(QString::fromStdString(*v13));
            if (!ms || *ms < 100) return usage("--connect-timeout: '" + *v13 + "' is not a duration");
            connectTimeoutMs = static_cast<int>(*ms);
        } else if (cursor.takeFlag("--tls")) {
            tls = true;
        } else if (cursor.takeFlag("--quick")) {
            quick = true;
        } else if (!cursor.peek().empty() && cursor.peek()[0] == '-') {
            return usage("unknown option '" + cursor.peek() + "'");
        } else if (target.isEmpty()) {
            target = QString::fromStdString(cursor.next());
        } else {
            return usage("unexpected argument '" + cursor.peek() + "'");
        }
        if (!cursor.error().empty()) return usage(cursor.error());
    }
    if (!cursor.error().empty()) return usage(cursor.error());
    if (target.isEmpty() && !resumeId) return usage("name a preset or a campaign file (or --resume ID)");
    if (!target.isEmpty() && resumeId)
        return usage("--resume takes the campaign from the database; drop '" + target.toStdString() + "'");
    // A deployed lab (smclab lab deploy) stands in for --agents and --token-file;
    // with neither and no lab file, the local lab (two agents on this host), as smclab demo.
    const QString labPath = resolveLabPath(labArg);
    const bool useLab =
        !labArg.isEmpty() || (agentsText.isEmpty() && tokenFile.isEmpty() && QFileInfo::exists(labPath));
    const bool localLab = !useLab && agentsText.isEmpty() && tokenFile.isEmpty() && !resumeId;
    if (!useLab && !localLab && agentsText.isEmpty()) {
        return usage(resumeId ? "--resume needs --agents (server and client HOST:PORT) or --lab FILE"
                              : "--agents is required with --token-file (server and client HOST:PORT); "
                                "without both, the campaign runs on the local lab");
    }
    if (!useLab && !localLab && tokenFile.isEmpty()) return usage("--token-file is required");

    std::vector<AgentPair> agents;
    const QStringList agentList = agentsText.split(QLatin1Char(','), Qt::SkipEmptyParts);
    if (!useLab && !localLab) {
        if (agentList.size() < 2 || agentList.size() % 2 != 0)
            return usage("--agents needs pairs: SERVER_HOST:PORT,CLIENT_HOST:PORT[,...]");
        for (int i = 0; i + 1 < agentList.size(); i += 2)
            agents.push_back({agentList[i].trimmed(), agentList[i + 1].trimmed()});
        if (const auto errors = validateAgents(agents); !errors.empty()) return usage(joinErrors(errors).toStdString());
    }

    QString token;
    if (!tokenFile.isEmpty()) {
        QString why;
        token = readTokenFile(tokenFile, QStringLiteral("--token-file"), &why);
        if (token.isEmpty()) {
            std::fprintf(stderr, "smclab run: %s\n", qPrintable(why));
            return kExitFailure;
        }
    }
    QHash<QString, QString> tokenByAddress;
    if (useLab) {
        QString why;
        const auto lab = loadLab(labPath, &why);
        if (!lab) {
            std::fprintf(stderr, "smclab run: %s\n", qPrintable(why));
            return kExitFailure;
        }
        auto resolved = resolveCampaignAgents(*lab, labPath, agentList, token, &why);
        if (!resolved) {
            std::fprintf(stderr, "smclab run: %s\n", qPrintable(why));
            return kExitFailure;
        }
        agents = resolved->pairs;
        tokenByAddress = resolved->tokenByAddress;
        if (const auto errors = validateAgents(agents); !errors.empty()) return usage(joinErrors(errors).toStdString());
    }
    // What a resume needs to reach the same agents, for the hints below.
    QStringList reachArgs;
    if (useLab) reachArgs << QStringLiteral("--lab") << labPath;
    if (!agentsText.isEmpty()) reachArgs << QStringLiteral("--agents") << agentsText;
    if (!tokenFile.isEmpty()) reachArgs << QStringLiteral("--token-file") << tokenFile;
    if (!dbPath.isEmpty()) reachArgs << QStringLiteral("--db") << dbPath;
    const QString reach = reachArgs.join(QLatin1Char(' '));

    ensureCoreApplication();
    CampaignSpec spec;
    if (!resumeId) {
        if (auto preset = presetCampaign(target)) {
            spec = *preset;
        } else if (QFileInfo::exists(target)) {
            auto loaded = loadCampaignFile(target);
            if (!loaded) {
                std::fprintf(stderr, "smclab run: %s\n", loaded.error().message.c_str());
                return kExitUsage;
            }
            spec = *loaded;
        } else {
            return usage("unknown preset '" + target.toStdString() + "' and no such campaign file (presets: " +
                         presetNames().join(QStringLiteral(", ")).toStdString() + ")");
        }
        if (!name.isEmpty()) spec.name = name;
        if (durationMs) {
            spec.durationMs = static_cast<int>(*durationMs);
            // A shortened run keeps a proportionate warm-up.
            if (!warmupMs) spec.warmupMs = std::min<int>(spec.warmupMs, spec.durationMs / 5);
        }
        if (warmupMs) spec.warmupMs = static_cast<int>(*warmupMs);
        if (repetitions) spec.repetitions = static_cast<int>(*repetitions);
        if (repeatBusy)
            spec.quietHost.repeatBusy = static_cast<int>(std::clamp<int64_t>(*repeatBusy, -1, kMaxRepeatBusy + 1));
        if (quietWaitMs)
            spec.quietHost.waitMs = static_cast<int>(std::clamp<int64_t>(*quietWaitMs, -1, kMaxQuietWaitMs + 1));
        if (!sizesText.isEmpty()) {
            QString error;
            auto sizes = parseSizeListText(sizesText, &error);
            if (!sizes) return usage("--sizes: " + error.toStdString());
            spec.sizes = *sizes;
            for (WorkloadSpec& workload : spec.workloads) workload.sizes.clear();
        }
        if (!policyText.isEmpty()) {
            if (policyText == QLatin1String("continue"))
                spec.onAgentLoss = AgentLossPolicy::continueCampaign;
            else if (policyText == QLatin1String("pause"))
                spec.onAgentLoss = AgentLossPolicy::pause;
            else
                return usage("--on-agent-loss: must be continue or pause");
        }
        if (!localLab) spec.agents = agents;
        if (isToolPreset(spec.preset)) {
            bool oneHost = localLab;
            for (const AgentPair& pair : spec.agents) {
                oneHost = oneHost ||
                          pair.server.section(QLatin1Char(':'), 0, -2) == pair.client.section(QLatin1Char(':'), 0, -2);
            }
            const HostScale host{static_cast<int>(::sysconf(_SC_NPROCESSORS_ONLN)), quick, oneHost};
            for (const QString& note : scaleToolPreset(spec, host))
                std::fprintf(stderr, "scaled: %s\n", qPrintable(note));
        } else if (quick) {
            return usage(
                "--quick applies to the seed presets (seed000-qperf, seed002-nginx, seed003-shortconn, seed004-redis)");
        }
        if (localLab) spec.agents = {{QStringLiteral("127.0.0.1:1"), QStringLiteral("127.0.0.1:2")}};  // replaced below
        if (const auto errors = validateCampaign(spec); !errors.empty()) {
            std::fprintf(stderr, "smclab run: invalid campaign:\n%s\n", qPrintable(joinErrors(errors)));
            return kExitUsage;
        }
    } else if (durationMs || warmupMs || repetitions || repeatBusy || quietWaitMs || !sizesText.isEmpty() ||
               !name.isEmpty()) {
        return usage("--resume runs the stored campaign as planned; -t, --warmup, --sizes, -r and --name do not apply");
    }

    auto store = db::ResultStore::open(db::resolveDatabasePath(dbPath));
    if (!store) {
        std::fprintf(stderr, "smclab run: %s\n", store.error().message.c_str());
        return kExitFailure;
    }

    locallab::LocalLab lab;
    if (localLab) {
        if (smcr::Status s = startLocalLab(lab, spec, "smclab run"); !s) {
            std::fprintf(stderr, "smclab run: the local lab did not start: %s\n", s.error().message.c_str());
            return kExitFailure;
        }
        agents = spec.agents;
        token = lab.agents().token();
    }

    Orchestrator orchestrator(**store);
    if (localLab) orchestrator.setWire(lab.wire().toJson());
    AgentConnectOptions options;
    options.token = token;
    options.tls = tls;
    options.caCertFile = caCert;
    options.connectTimeoutMs = connectTimeoutMs;
    orchestrator.setConnectOptions(options);
    orchestrator.setAgentTokens(tokenByAddress);
    const ConsoleResult result = runCampaignOnConsole(orchestrator, [&]() -> smcr::Status {
        if (resumeId) return orchestrator.resume(*resumeId, agents);
        return orchestrator.start(spec);
    });

    switch (result.state) {
        case RunnerState::finished: {
            const Progress progress = orchestrator.progress();
            std::fprintf(stderr, "campaign %lld done: %d cells ran, %d failed; database %s\n",
                         static_cast<long long>(result.campaignId), progress.doneCells, result.failedCells,
                         qPrintable((*store)->path()));
            for (const auto& [column, error] : result.failuresByColumn)
                std::fprintf(stderr, "  failed in %s: %s\n", qPrintable(column), qPrintable(error));
            if (orchestrator.spec().repetitions > 1)
                std::fprintf(stderr,
                             "  values are medians of %d repetitions (intervals in ==== Confidence ====); all formats: "
                             "smclab report %lld --format md\n",
                             orchestrator.spec().repetitions, static_cast<long long>(result.campaignId));
            if (!printCampaignTables(**store, result.campaignId, stdout)) return kExitFailure;
            if (result.failedCells == 0) return kExitOk;
            // A campaign with holes is not a success: scripts that chain
            // `run` and `report` must see it (the tables show '-').
            std::fprintf(stderr, "smclab run: %s; re-run them with:\n  smclab run --resume %lld %s\n",
                         qPrintable(failedRunsText(result.failedCells, progress.totalCells)),
                         static_cast<long long>(result.campaignId), qPrintable(reach));
            return kExitRunsFailed;
        }
        case RunnerState::stopped:
            std::fprintf(stderr,
                         "smclab run: stopped; campaign %lld keeps its finished runs. Resume with:\n"
                         "  smclab run --resume %lld %s\n",
                         static_cast<long long>(result.campaignId), static_cast<long long>(result.campaignId),
                         qPrintable(reach));
            return kExitInterrupted;
        case RunnerState::paused:
            std::fprintf(stderr,
                         "smclab run: an agent was lost; campaign %lld paused (onAgentLoss: pause). Resume with:\n"
                         "  smclab run --resume %lld %s\n",
                         static_cast<long long>(result.campaignId), static_cast<long long>(result.campaignId),
                         qPrintable(reach));
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
                    static_cast<long long>(result.campaignId), static_cast<long long>(result.campaignId),
                    qPrintable(reach));
            return kExitFailure;
    }
}

}  // namespace smclab::cli
