// smclab bench wire: TCP over the local lab's wire against this host's
// loopback, with the real qperf and our tcp_bw side by side (the lab
// library's wire_bench.h does the work; this prints it).
#include <algorithm>
#include <cstdio>
#include <string>

#include <unistd.h>

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include "args.h"
#include "bench_commands.h"
#include "campaign_console.h"
#include "command.h"
#include "wire_bench.h"

namespace smclab::cli {

namespace {

using locallab::kWirePaths;
using locallab::WireBenchResult;
using locallab::WirePath;

constexpr const char* kWho = "smclab bench wire";

void printHelp() {
    std::printf(
        "usage: smclab bench wire [--link MODEL] [-oo msg_size:1:64K:*2 | --sizes LIST] [-t SECONDS]\n"
        "                         [--reps N] [--json] [--mtu N] [--no-steering] [--shape always]\n"
        "\n"
        "TCP over the local lab's wire (the veth between network namespaces that\n"
        "`smclab demo` and `smclab run` make for a link model) against TCP over this\n"
        "host's loopback: qperf tcp_bw and smclab's own tcp_bw (serve tcp / load\n"
        "tcp_bw), each over both, in interleaved rounds, pinned as the lab pins its\n"
        "agents. A TCP column is the host's real TCP when the veth moves what\n"
        "loopback moves, and our tcp_bw what qperf moves. Needs root and qperf.\n"
        "\n"
        "options:\n"
        "  --link MODEL     ideal | cx4-25g | cx4lx-vf (default cx4lx-vf, the demo's)\n"
        "  -oo LOOP         qperf's size loop (default msg_size:1:64K:*4)\n"
        "  --sizes LIST     message sizes instead: 1,1K,64K\n"
        "  -t SECONDS       each client run's time, whole seconds as qperf takes them (default 1)\n"
        "  --reps N         interleaved rounds (default 3); medians with [min, max]\n"
        "  --json           the wire record and every run's MB/s as JSON\n"
        "\n"
        "the veth as the lab makes it, or as it was (to measure each choice):\n"
        "  --mtu N          the veth's MTU (default 65535; the model's Ethernet MTU is 1500)\n"
        "  --no-steering    no receive steering (the kernel's default: packets are received\n"
        "                   on the CPU that sent them, and a moving sender reorders)\n"
        "  --shape always   tbf at the model's rate even where the host moves less\n");
}

double median(QList<double> values) {
    std::sort(values.begin(), values.end());
    const qsizetype n = values.size();
    if (n == 0) return 0;
    return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

// MB/s with about three significant digits, never in exponent form.
QString rate(double mbps) {
    return QString::number(mbps, 'f', mbps >= 100 ? 0 : mbps >= 10 ? 1 : 2);
}

QString sizeText(uint64_t bytes) {
    if (bytes >= 1024 && bytes % 1024 == 0) return QStringLiteral("%1K").arg(bytes / 1024);
    return QString::number(bytes);
}

void printTable(const WireBenchResult& r) {
    std::printf("==== TCP over the lab's wire against loopback (MB/s, median [min, max]) ====\n");
    std::printf("%-8s", "MsgSize");
    for (int p = 0; p < kWirePaths; ++p)
        std::printf("  %-22s", qPrintable(locallab::wirePathName(static_cast<WirePath>(p))));
    std::printf("  %-10s  %-10s  %s\n", "qperf v/lo", "ours v/lo", "ours/qperf veth");
    for (const auto& row : r.rows) {
        std::printf("%-8s", qPrintable(sizeText(row.msgSize)));
        double med[kWirePaths];
        for (int p = 0; p < kWirePaths; ++p) {
            const QList<double>& v = row.mbps[static_cast<size_t>(p)];
            med[p] = median(v);
            const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
            const QString cell = QStringLiteral("%1 [%2, %3]").arg(rate(med[p]), rate(*lo), rate(*hi));
            std::printf("  %-22s", qPrintable(cell));
        }
        const auto ratio = [](double a, double b) { return b > 0 ? a / b : 0.0; };
        std::printf("  %-10s  %-10s  %s\n", qPrintable(QStringLiteral("%1x").arg(ratio(med[1], med[0]), 0, 'f', 2)),
                    qPrintable(QStringLiteral("%1x").arg(ratio(med[3], med[2]), 0, 'f', 2)),
                    qPrintable(QStringLiteral("%1x").arg(ratio(med[3], med[1]), 0, 'f', 2)));
    }
    std::printf("==== Wire ====\n");
    std::printf("veth     %s\n", qPrintable(r.wire.note));
    if (r.cpus[0] >= 0) std::printf("pinned   clients on CPU %d, servers on CPU %d\n", r.cpus[0], r.cpus[1]);
    std::printf("retrans  ");
    for (int p = 0; p < kWirePaths; ++p)
        std::printf("%s%s %lld", p ? ", " : "", qPrintable(locallab::wirePathName(static_cast<WirePath>(p))),
                    static_cast<long long>(r.retransmits[static_cast<size_t>(p)]));
    std::printf(" (TCP segments this host retransmitted while each ran)\n");
}

QJsonObject toJson(const WireBenchResult& r) {
    QJsonArray rows;
    for (const auto& row : r.rows) {
        QJsonObject o{{QStringLiteral("msg_size"), static_cast<double>(row.msgSize)}};
        for (int p = 0; p < kWirePaths; ++p) {
            QJsonArray values;
            for (double v : row.mbps[static_cast<size_t>(p)]) values.append(v);
            o.insert(locallab::wirePathName(static_cast<WirePath>(p)).replace(QLatin1Char(' '), QLatin1Char('_')) +
                         QStringLiteral("_MBps"),
                     values);
        }
        rows.append(o);
    }
    QJsonObject retransmits;
    for (int p = 0; p < kWirePaths; ++p)
        retransmits.insert(locallab::wirePathName(static_cast<WirePath>(p)).replace(QLatin1Char(' '), QLatin1Char('_')),
                           static_cast<double>(r.retransmits[static_cast<size_t>(p)]));
    return QJsonObject{{QStringLiteral("wire"), r.wire.toJson()},
                       {QStringLiteral("rows"), rows},
                       {QStringLiteral("retransmits"), retransmits}};
}

}  // namespace

int runBenchWire(const Args& args) {
    locallab::WireBenchOptions options;
    options.sizes = SizeLoop{"msg_size", 1, 65536, 4, true}.values();
    bool json = false;
    ArgCursor cursor(args);
    while (!cursor.done()) {
        if (cursor.takeFlag("--help") || cursor.takeFlag("-h")) {
            printHelp();
            return kExitOk;
        }
        if (cursor.takeFlag("--json")) {
            json = true;
        } else if (cursor.takeFlag("--no-steering")) {
            options.veth.steerReceives = false;
        } else if (auto mtu = cursor.takeValue("--mtu")) {
            auto n = parseInt(*mtu);
            if (!n || *n < 68 || *n > locallab::kVethMtu) return benchUsage(kWho, "--mtu: give 68 to 65535");
            options.veth.mtu = static_cast<int>(*n);
        } else if (auto shape = cursor.takeValue("--shape")) {
            if (*shape != "always" && *shape != "auto") return benchUsage(kWho, "--shape: always or auto");
            options.veth.shapeAlways = *shape == "always";
        } else if (auto link = cursor.takeValue("--link")) {
            options.linkModel = QString::fromStdString(*link);
        } else if (auto loopText = cursor.takeValue("-oo")) {
            std::string error;
            auto loop = parseSizeLoop(*loopText, &error);
            if (!loop) return benchUsage(kWho, error);
            options.sizes = loop->values();
        } else if (auto sizes = cursor.takeValue("--sizes")) {
            options.sizes.clear();
            for (const std::string& item : splitList(*sizes)) {
                auto size = parseSize(item);
                if (!size || *size == 0) return benchUsage(kWho, "--sizes: '" + item + "' is not a message size");
                options.sizes.push_back(*size);
            }
        } else if (auto time = cursor.takeValue("-t")) {
            auto ms = parseDurationMs(*time);
            // qperf's -t takes whole seconds.
            if (!ms || *ms < 1000 || *ms > 600'000 || *ms % 1000 != 0)
                return benchUsage(kWho, "-t: give whole seconds, 1 to 600");
            options.durationMs = static_cast<int>(*ms);
        } else if (auto reps = cursor.takeValue("--reps")) {
            auto n = parseInt(*reps);
            if (!n || *n < 1 || *n > 100) return benchUsage(kWho, "--reps: give 1 to 100");
            options.repetitions = static_cast<int>(*n);
        } else {
            return benchUsage(kWho, cursor.unknownOption());
        }
    }
    if (!cursor.error().empty()) return benchUsage(kWho, cursor.error());
    ensureCoreApplication();
    options.smclabProgram = QCoreApplication::applicationFilePath();
    const bool bar = ::isatty(STDERR_FILENO) != 0;
    auto result = locallab::benchWire(options, [bar](int done, int total, const QString& what) {
        if (bar) std::fprintf(stderr, "\r%s: %d/%d %-24s", kWho, done, total, qPrintable(what));
    });
    if (bar) std::fprintf(stderr, "\n");
    if (!result) {
        std::fprintf(stderr, "%s: %s\n", kWho, result.error().message.c_str());
        return kExitFailure;
    }
    if (json) {
        std::printf("%s\n", QJsonDocument(toJson(*result)).toJson(QJsonDocument::Indented).constData());
    } else {
        printTable(*result);
    }
    return kExitOk;
}

}  // namespace smclab::cli
