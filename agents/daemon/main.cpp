// smclab-agent: the lab daemon (agents/daemon/agent.h). Prints
// "listening on ADDR:PORT" on stdout once it accepts controllers, so scripts
// and tests can start it on port 0 and learn the port.
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <sched.h>

#include <smcr/version.h>

#include <QCoreApplication>

#include "agent.h"
#include "agent_metrics.h"
#include "fd_limit.h"
#include "log.h"
#include "metrics_server.h"
#include "options.h"
#include "peer_policy.h"
#include "protocol/version.h"
#include "signal_watcher.h"
#include "token_auth.h"
#include "tool_programs.h"

namespace {

using namespace smclab::daemon;

// Exit statuses: 2 for what the command line asked wrong, 1 for what the host refused.
constexpr int kExitUsage = 2;
constexpr int kExitFailure = 1;

// The tool paths, the token and the --allow-peer list; false (after saying
// why on stderr) when one of them is wrong.
bool loadAccess(const DaemonOptions& options, QByteArray* token, PeerPolicy* peers) {
    if (const smcr::Status tools = smclab::workloads::setToolPaths(options.toolPaths); !tools.ok()) {
        std::fprintf(stderr, "smclab-agent: %s\n", tools.error().message.c_str());
        return false;
    }
    QString why;
    const auto loaded = loadToken(options.tokenFile, &why);
    if (!loaded) {
        std::fprintf(stderr, "smclab-agent: %s\n", qPrintable(why));
        return false;
    }
    *token = *loaded;
    for (const QString& cidr : options.allowPeers) {
        if (!peers->addCidr(cidr, &why)) {
            std::fprintf(stderr, "smclab-agent: --allow-peer: %s\n", qPrintable(why));
            return false;
        }
    }
    return true;
}

// --cpu, before any thread starts (every thread of the agent inherits it);
// then as many open files as the hard limit allows.
bool prepareProcess(const DaemonOptions& options) {
    if (options.cpu >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(options.cpu, &set);
        if (::sched_setaffinity(0, sizeof set, &set) != 0) {
            std::fprintf(stderr, "smclab-agent: --cpu %d: %s\n", options.cpu, std::strerror(errno));
            return false;
        }
    }
    const FdLimit fdLimit = raiseFdLimit();
    if (fdLimit.raised) {
        qInfo("open files: soft limit raised from %llu to %llu", static_cast<unsigned long long>(fdLimit.before),
              static_cast<unsigned long long>(fdLimit.now));
    }
    return true;
}

bool startMetrics(MetricsServer& metrics, const DaemonOptions& options) {
    if (!options.metrics) return true;
    QString why;
    if (!metrics.listen(*options.metrics, &why)) {
        std::fprintf(stderr, "smclab-agent: %s\n", qPrintable(why));
        return false;
    }
    qInfo("metrics: serving http://%s/metrics", qPrintable(metrics.endpoint().toString()));
    // Before "listening on": a script that waits for that line knows both ports.
    std::printf("metrics on %s\n", qPrintable(metrics.endpoint().toString()));
    return true;
}

void announceListening(const Agent& agent, const DaemonOptions& options) {
    const QString scheme = options.tlsCertFile.isEmpty() ? "ws" : "wss";
    qInfo("smclab-agent %s, protocol %s, listening on %s (%s), peers allowed: %s, max %d runs of %lld s",
          smcr::versionString(), smclab::protocol::kProtocolVersion, qPrintable(agent.endpoint().toString()),
          qPrintable(scheme), qPrintable(agent.peers().describe().join(", ")), options.maxRuns,
          static_cast<long long>(options.maxDurationMs / 1000));
    std::printf("listening on %s\n", qPrintable(agent.endpoint().toString()));
    std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName("smclab-agent");
    QCoreApplication::setApplicationVersion(smcr::versionString());
    installLogHandler();

    DaemonOptions options;
    switch (parseOptions(QCoreApplication::arguments(), &options)) {
        case ParseOutcome::exitOk:
            return 0;
        case ParseOutcome::exitUsage:
        case ParseOutcome::invalid:
            return kExitUsage;
        case ParseOutcome::run:
            break;
    }
    QByteArray token;
    PeerPolicy peers;
    if (!loadAccess(options, &token, &peers) || !prepareProcess(options)) return kExitUsage;

    SignalWatcher signalWatcher;
    if (!signalWatcher.ok()) {
        std::fprintf(stderr, "smclab-agent: cannot install signal handlers\n");
        return kExitFailure;
    }
    Agent agent(options, token, peers);
    if (QString why; !agent.start(&why)) {
        std::fprintf(stderr, "smclab-agent: %s\n", qPrintable(why));
        return kExitFailure;
    }
    MetricsServer metrics(agent.peers(), [&agent] { return agentMetrics(agent).toText(); });
    if (!startMetrics(metrics, options)) return kExitFailure;
    QObject::connect(&signalWatcher, &SignalWatcher::terminationRequested, &agent, [&agent](int number) {
        qInfo("signal %d: shutting down", number);
        agent.shutdown();
    });
    QObject::connect(&agent, &Agent::shutdownComplete, &app, &QCoreApplication::quit);
    announceListening(agent, options);

    const int code = app.exec();
    if (agent.shutdownTimedOut()) {
        // A worker thread is stuck in a workload; joining it would hang.
        std::fflush(stderr);
        std::_Exit(1);
    }
    qInfo("stopped");
    return code;
}
