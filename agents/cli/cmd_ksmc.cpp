// smclab ksmc: the host kernel's SMC (net/smc) through its generic netlink
// families, in the commands smc-tools users know: `stats` (smcr stats -a:
// successes, bytes, fallbacks by the kernel's reason code), `linkgroup`
// (smcr linkgroup, with the negotiated v2 limits), `ueid` (smcr ueid),
// `pnet` (smc_pnet -a). The VM lab hosts set themselves up with
// these (agents/lab/vm); smc-tools is not packaged for Debian 12.
#include <cstdio>
#include <cstdlib>
#include <string>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include "commands.h"
#include "smc_netlink.h"

namespace smclab::cli {

namespace {

namespace nl = transports::smcnl;

void printHelp() {
    std::printf(
        "usage: smclab ksmc stats [--json]\n"
        "       smclab ksmc linkgroup [--json]\n"
        "       smclab ksmc ueid add UEID | ueid list\n"
        "       smclab ksmc pnet add PNETID [-I NETDEV] [-D RDMA_DEV [-P PORT]]\n"
        "\n"
        "The kernel's SMC in this network namespace, through the SMC generic netlink\n"
        "families (what smc-tools' smcr stats, smcr linkgroup, smcr ueid and smc_pnet do):\n"
        "  stats   SMC-R and SMC-D successes by version and side, bytes and calls,\n"
        "          RMB counters, handshake errors and fallbacks by the kernel's reason\n"
        "          code, since the smc module was loaded (absolute, like smcr stats -a)\n"
        "  linkgroup  the SMC-R link groups: id, role, type, connections, PNET ID and,\n"
        "          for SMC-Rv2, the peer and the negotiated limits (Max-Links above 1:\n"
        "          the kernel adds a second link or, as a client, waits for one)\n"
        "  ueid    the User Defined EIDs; SMC-Rv2 (the only SMC-R soft-RoCE carries)\n"
        "          needs one that both hosts share (needs CAP_NET_ADMIN)\n"
        "  pnet    a pnet table entry tying a netdev and an RDMA device's port (rxe\n"
        "          has no netdev link the kernel can find on 6.1; needs CAP_NET_ADMIN)\n");
}

void printTech(const char* name, const nl::TechStats& t) {
    std::printf("%s\n", name);
    std::printf("  success   client v1 %llu  v2 %llu   server v1 %llu  v2 %llu\n",
                static_cast<unsigned long long>(t.clientV1Success), static_cast<unsigned long long>(t.clientV2Success),
                static_cast<unsigned long long>(t.serverV1Success), static_cast<unsigned long long>(t.serverV2Success));
    std::printf("  bytes     rx %llu  tx %llu   calls rx %llu  tx %llu\n", static_cast<unsigned long long>(t.rxBytes),
                static_cast<unsigned long long>(t.txBytes), static_cast<unsigned long long>(t.rxCalls),
                static_cast<unsigned long long>(t.txCalls));
    std::printf("  sockopts  cork %llu  nodelay %llu   sendpage %llu  splice %llu  urgent %llu\n",
                static_cast<unsigned long long>(t.corkCount), static_cast<unsigned long long>(t.nodelayCount),
                static_cast<unsigned long long>(t.sendpageCount), static_cast<unsigned long long>(t.spliceCount),
                static_cast<unsigned long long>(t.urgentCount));
    std::printf("  rmb       alloc %llu  reuse %llu  full %llu  peer full %llu\n",
                static_cast<unsigned long long>(t.rmbAllocations), static_cast<unsigned long long>(t.rmbReuses),
                static_cast<unsigned long long>(t.rmbFull), static_cast<unsigned long long>(t.rmbFullPeer));
}

QJsonObject techJson(const nl::TechStats& t) {
    auto n = [](uint64_t v) { return static_cast<double>(v); };
    return QJsonObject{{"client_v1_success", n(t.clientV1Success)},
                       {"client_v2_success", n(t.clientV2Success)},
                       {"server_v1_success", n(t.serverV1Success)},
                       {"server_v2_success", n(t.serverV2Success)},
                       {"rx_bytes", n(t.rxBytes)},
                       {"tx_bytes", n(t.txBytes)},
                       {"rx_calls", n(t.rxCalls)},
                       {"tx_calls", n(t.txCalls)},
                       {"cork_cnt", n(t.corkCount)},
                       {"ndly_cnt", n(t.nodelayCount)},
                       {"sendpage_cnt", n(t.sendpageCount)},
                       {"splice_cnt", n(t.spliceCount)},
                       {"urg_data_cnt", n(t.urgentCount)},
                       {"rmb_full_peer", n(t.rmbFullPeer)},
                       {"rmb_full", n(t.rmbFull)},
                       {"rmb_alloc", n(t.rmbAllocations)},
                       {"rmb_reuse", n(t.rmbReuses)}};
}

void printStatsJson(const nl::KernelStats& stats, const std::vector<nl::FallbackCount>& fallbacks) {
    QJsonArray fb;
    for (const nl::FallbackCount& f : fallbacks) {
        fb.append(QJsonObject{{"side", f.server ? "server" : "client"},
                              {"reason", static_cast<double>(f.reason)},
                              {"name", QString::fromStdString(nl::fallbackReasonName(f.reason))},
                              {"count", static_cast<double>(f.count)}});
    }
    const QJsonObject root{{"smcr", techJson(stats.smcr)},
                           {"smcd", techJson(stats.smcd)},
                           {"client_hs_err_cnt", static_cast<double>(stats.clientHandshakeErrors)},
                           {"server_hs_err_cnt", static_cast<double>(stats.serverHandshakeErrors)},
                           {"fallbacks", fb}};
    std::printf("%s", QJsonDocument(root).toJson(QJsonDocument::Indented).constData());
}

int printStats(bool json) {
    const auto stats = nl::readStats();
    if (!stats) {
        std::fprintf(stderr, "smclab ksmc stats: %s\n", stats.error().message.c_str());
        return kExitFailure;
    }
    const auto fallbacks = nl::readFallbacks();
    if (!fallbacks) {
        std::fprintf(stderr, "smclab ksmc stats: %s\n", fallbacks.error().message.c_str());
        return kExitFailure;
    }
    if (json) {
        printStatsJson(*stats, *fallbacks);
        return kExitOk;
    }
    printTech("SMC-R", stats->smcr);
    printTech("SMC-D", stats->smcd);
    std::printf("handshake errors  client %llu  server %llu\n",
                static_cast<unsigned long long>(stats->clientHandshakeErrors),
                static_cast<unsigned long long>(stats->serverHandshakeErrors));
    if (fallbacks->empty()) {
        std::printf("fallbacks  none\n");
        return kExitOk;
    }
    std::printf("fallbacks\n");
    for (const nl::FallbackCount& f : *fallbacks) {
        std::printf("  %-6s %-24s %llu\n", f.server ? "server" : "client", nl::describeFallbackReason(f.reason).c_str(),
                    static_cast<unsigned long long>(f.count));
    }
    return kExitOk;
}

int printLinkGroups(bool json) {
    const auto groups = nl::readLinkGroups();
    if (!groups) {
        std::fprintf(stderr, "smclab ksmc linkgroup: %s\n", groups.error().message.c_str());
        return kExitFailure;
    }
    if (json) {
        QJsonArray all;
        for (const nl::LinkGroup& g : *groups) {
            all.append(QJsonObject{{"id", static_cast<double>(g.id)},
                                   {"role", g.server ? "SERV" : "CLNT"},
                                   {"type", QString::fromStdString(nl::linkGroupTypeName(g.type))},
                                   {"vlan", g.vlanId},
                                   {"conns", static_cast<double>(g.conns)},
                                   {"pnetid", QString::fromStdString(g.pnetid)},
                                   {"smc_version", g.smcVersion},
                                   {"release", g.release},
                                   {"peer_host", QString::fromStdString(g.peerHost)},
                                   {"eid", QString::fromStdString(g.negotiatedEid)},
                                   {"direct", g.direct},
                                   {"max_conns", g.maxConns},
                                   {"max_links", g.maxLinks}});
        }
        std::printf("%s", QJsonDocument(all).toJson(QJsonDocument::Indented).constData());
        return kExitOk;
    }
    std::printf("%-8s %-7s %-7s %4s %6s  %-16s %3s %3s %9s %9s  %s\n", "LG-ID", "LG-Role", "LG-Type", "VLAN", "#Conns",
                "PNET-ID", "Ver", "Rel", "Max-Conns", "Max-Links", "Peer-Host");
    for (const nl::LinkGroup& g : *groups) {
        std::printf("%08x %-7s %-7s %4u %6u  %-16s %3u %3u %9u %9u  %s\n", g.id, g.server ? "SERV" : "CLNT",
                    nl::linkGroupTypeName(g.type).c_str(), g.vlanId, g.conns, g.pnetid.c_str(), g.smcVersion, g.release,
                    g.maxConns, g.maxLinks, g.peerHost.c_str());
    }
    return kExitOk;
}

int runUeid(const Args& args) {
    if (args.size() == 2 && args[1] == "list") {
        const auto ueids = nl::listUeids();
        if (!ueids) {
            std::fprintf(stderr, "smclab ksmc ueid list: %s\n", ueids.error().message.c_str());
            return kExitFailure;
        }
        for (const std::string& ueid : *ueids) std::printf("%s\n", ueid.c_str());
        return kExitOk;
    }
    if (args.size() == 3 && args[1] == "add") {
        const smcr::Status st = nl::addUeid(args[2]);
        if (!st.ok()) {
            std::fprintf(stderr, "smclab ksmc ueid add: %s\n", st.error().message.c_str());
            return st.error().code == smcr::Errc::invalidArgument ? kExitUsage : kExitFailure;
        }
        return kExitOk;
    }
    std::fprintf(stderr, "usage: smclab ksmc ueid add UEID | ueid list\n");
    return kExitUsage;
}

int runPnet(const Args& args) {
    if (args.size() < 3 || args[1] != "add") {
        std::fprintf(stderr, "usage: smclab ksmc pnet add PNETID [-I NETDEV] [-D RDMA_DEV [-P PORT]]\n");
        return kExitUsage;
    }
    std::string eth;
    std::string ib;
    int port = 1;
    for (size_t i = 3; i < args.size(); ++i) {
        const std::string& option = args[i];
        if (i + 1 >= args.size()) {
            std::fprintf(stderr, "smclab ksmc pnet add: option %s needs a value\n", option.c_str());
            return kExitUsage;
        }
        const std::string& value = args[++i];
        if (option == "-I") {
            eth = value;
        } else if (option == "-D") {
            ib = value;
        } else if (option == "-P") {
            char* end = nullptr;
            port = static_cast<int>(std::strtol(value.c_str(), &end, 10));
            if (end == value.c_str() || *end != '\0') port = 0;
        } else {
            std::fprintf(stderr, "smclab ksmc pnet add: unknown option '%s'\n", option.c_str());
            return kExitUsage;
        }
    }
    const smcr::Status st = nl::addPnet(args[2], eth, ib, port);
    if (!st.ok()) {
        std::fprintf(stderr, "smclab ksmc pnet add: %s\n", st.error().message.c_str());
        return st.error().code == smcr::Errc::invalidArgument ? kExitUsage : kExitFailure;
    }
    return kExitOk;
}

}  // namespace

int runKsmc(const Args& args) {
    if (args.empty()) {
        printHelp();
        return kExitUsage;
    }
    const std::string& sub = args[0];
    if (sub == "--help" || sub == "-h") {
        printHelp();
        return kExitOk;
    }
    if (sub == "stats" && args.size() == 1) return printStats(false);
    if (sub == "stats" && args.size() == 2 && args[1] == "--json") return printStats(true);
    if (sub == "linkgroup") {
        if (args.size() == 1) return printLinkGroups(false);
        if (args.size() == 2 && args[1] == "--json") return printLinkGroups(true);
        std::fprintf(stderr, "usage: smclab ksmc linkgroup [--json]\n");
        return kExitUsage;
    }
    if (sub == "ueid") return runUeid(args);
    if (sub == "pnet") return runPnet(args);
    std::fprintf(stderr, "smclab ksmc: unknown subcommand '%s' (stats, linkgroup, ueid, pnet)\n", sub.c_str());
    return kExitUsage;
}

}  // namespace smclab::cli
