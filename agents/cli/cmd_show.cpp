// smclab show ID: one campaign in detail: its matrix, the settings that
// tell its columns apart, and every run with its status and what its
// connections did (SMC-R, fell back, or over TCP, with the reasons).
#include <algorithm>
#include <cstdio>
#include <optional>

#include <QMap>
#include <QSet>

#include "args.h"
#include "commands.h"
#include "smclab/db/database_path.h"
#include "smclab/report/connection_use.h"
#include "store_cli.h"

namespace smclab::cli {

namespace {

void printShowHelp() {
    std::printf(
        "usage: smclab show ID [--db PATH] [--all-settings]\n"
        "\n"
        "Shows campaign ID: name, preset, status, dates and notes; its matrix\n"
        "(workloads, columns with their transports, message sizes, repetitions);\n"
        "the settings that differ between columns (all of them with\n"
        "--all-settings); and every run with its status and error.\n"
        "\n"
        "options:\n"
        "  --db PATH        results database, a file or postgresql://USER@HOST[:PORT]/DB (default: $%s, else %s)\n"
        "  --all-settings   print every setting, not only those that differ\n",
        db::kDatabaseEnv, qPrintable(db::defaultDatabasePath()));
}

QString trimRight(QString text) {
    while (text.endsWith(QLatin1Char(' '))) text.chop(1);
    return text;
}

QString date(const QDateTime& time) {
    return time.isValid() ? time.toUTC().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss")) : QStringLiteral("-");
}

QString sizeText(qint64 bytes) {
    if (bytes >= 1024 && bytes % 1024 == 0) return QString::number(bytes / 1024) + QLatin1Char('K');
    return QString::number(bytes);
}

void printMatrix(const QList<db::Run>& runs) {
    QStringList workloads, columns, sizes;
    QMap<QString, QStringList> transports;
    int repetitions = 0;
    QList<qint64> sizeValues;
    for (const db::Run& r : runs) {
        if (!workloads.contains(r.cell.workload)) workloads << r.cell.workload;
        if (!columns.contains(r.cell.column)) columns << r.cell.column;
        if (!transports[r.cell.column].contains(r.cell.transport)) transports[r.cell.column] << r.cell.transport;
        if (!sizeValues.contains(r.cell.msgSize)) sizeValues << r.cell.msgSize;
        repetitions = std::max(repetitions, r.cell.repetition + 1);
    }
    std::sort(sizeValues.begin(), sizeValues.end());
    for (qint64 s : sizeValues) sizes << sizeText(s);
    if (sizes.size() > 24) sizes = sizes.mid(0, 8) + QStringList{QStringLiteral("...")} + sizes.mid(sizes.size() - 3);
    QStringList columnText;
    for (const QString& c : columns)
        columnText << QStringLiteral("%1 (%2)").arg(c, transports[c].join(QLatin1Char('/')));
    std::printf("matrix:\n");
    std::printf("  workloads    %s\n", qPrintable(workloads.join(QStringLiteral(", "))));
    std::printf("  columns      %s\n", qPrintable(columnText.join(QStringLiteral(", "))));
    std::printf("  sizes        %s (%lld)\n", qPrintable(sizes.join(QStringLiteral(", "))),
                static_cast<long long>(sizeValues.size()));
    std::printf("  repetitions  %d\n", repetitions);
}

bool printSettings(db::ResultStore& store, const QList<db::Run>& runs, const QStringList& columns, bool all) {
    QMap<QString, QMap<QString, QString>> byColumn;  // column -> first done run's snapshot
    for (const db::Run& r : runs) {
        if (r.status != db::RunStatus::done || byColumn.contains(r.cell.column)) continue;
        auto settings = store.settings(r.id);
        if (!settings) {
            reportError("smclab show", settings.error());
            return false;
        }
        byColumn.insert(r.cell.column, *settings);
    }
    if (byColumn.isEmpty()) {
        std::printf("settings: none recorded yet (no finished run)\n");
        return true;
    }
    QStringList names;
    for (const auto& snapshot : byColumn) {
        for (const QString& name : snapshot.keys()) {
            if (!names.contains(name)) names << name;
        }
    }
    names.sort();
    QStringList shown;
    for (const QString& name : names) {
        QSet<QString> values;
        for (const QString& c : columns) values.insert(byColumn.value(c).value(name, QStringLiteral("-")));
        if (all || values.size() > 1) shown << name;
    }
    std::printf("settings per column (%s, first finished run of each column):\n", all ? "all" : "those that differ");
    if (shown.isEmpty()) {
        std::printf("  all %lld settings are the same in every column\n", static_cast<long long>(names.size()));
        return true;
    }
    int nameWidth = 8;
    for (const QString& n : shown) nameWidth = std::max(nameWidth, static_cast<int>(n.size()));
    // Each column as wide as its label or its widest value (sysctl values
    // such as tcp_rmem "4096 131072 33554432" are long).
    QList<int> widths;
    for (const QString& c : columns) {
        int width = std::max(12, static_cast<int>(c.size()));
        for (const QString& name : shown)
            width = std::max(width, static_cast<int>(byColumn.value(c).value(name, QStringLiteral("-")).size()));
        widths << width;
    }
    QString header = QStringLiteral("  ") + QStringLiteral("setting").leftJustified(nameWidth);
    for (int i = 0; i < columns.size(); ++i) header += QStringLiteral("  ") + columns[i].leftJustified(widths[i]);
    std::printf("%s\n", qPrintable(trimRight(header)));
    for (const QString& name : shown) {
        QString line = QStringLiteral("  ") + name.leftJustified(nameWidth);
        for (int i = 0; i < columns.size(); ++i)
            line += QStringLiteral("  ") +
                    byColumn.value(columns[i]).value(name, QStringLiteral("-")).leftJustified(widths[i]);
        std::printf("%s\n", qPrintable(trimRight(line)));
    }
    return true;
}

// The exit status when the command line says to stop here (help, a usage
// error); else the campaign id and the options.
std::optional<int> parseShowArgs(const Args& args, qint64* campaignId, QString* dbPath, bool* allSettings) {
    ArgCursor cursor(args);
    std::optional<qint64> id;
    while (!cursor.done()) {
        if (cursor.takeFlag("--help") || cursor.takeFlag("-h")) {
            printShowHelp();
            return kExitOk;
        }
        if (auto v = cursor.takeValue("--db")) {
            *dbPath = QString::fromStdString(*v);
        } else if (cursor.takeFlag("--all-settings")) {
            *allSettings = true;
        } else if (!id && cursor.peek().rfind("-", 0) != 0) {
            const std::string word = cursor.next();
            id = parseCampaignId(word);
            if (!id) cursor.setError("'" + word + "' is not a campaign id");
        } else {
            cursor.setError("unexpected argument '" + cursor.peek() + "'");
            break;
        }
    }
    if (cursor.error().empty() && !id) cursor.setError("which campaign? (smclab list shows the ids)");
    if (!cursor.error().empty()) {
        std::fprintf(stderr, "smclab show: %s\n(see smclab show --help)\n", cursor.error().c_str());
        return kExitUsage;
    }
    *campaignId = *id;
    return std::nullopt;
}

void printCampaignHeader(const db::Campaign& c) {
    std::printf("campaign #%lld: %s\n", static_cast<long long>(c.id), qPrintable(c.name));
    std::printf("  preset    %s\n", qPrintable(c.preset.isEmpty() ? QStringLiteral("-") : c.preset));
    std::printf("  status    %s (%d of %d runs done, %d failed)\n", qPrintable(db::statusName(c.status)), c.runsDone,
                c.runsTotal, c.runsFailed);
    std::printf("  created   %s UTC\n", qPrintable(date(c.createdAt)));
    std::printf("  finished  %s\n",
                qPrintable(c.finishedAt.isValid() ? date(c.finishedAt) + QStringLiteral(" UTC") : QStringLiteral("-")));
    if (!c.notes.isEmpty()) std::printf("  notes     %s\n", qPrintable(c.notes));
}

// What the runs crossed and how loaded the host was, from each run's facts
// (`busy`: "yes" by run id).
void printRunFacts(const QMap<qint64, QString>& wires, const QMap<qint64, QString>& busy) {
    QMap<QString, int> wireRuns;
    for (const QString& wire : wires) ++wireRuns[wire];
    if (!wireRuns.isEmpty()) {
        std::printf("wire (from the runs' facts):\n");
        for (auto it = wireRuns.cbegin(); it != wireRuns.cend(); ++it)
            std::printf("  %s (%d run%s)\n", qPrintable(it.key()), it.value(), it.value() == 1 ? "" : "s");
    }
    const auto busyRuns = std::count(busy.cbegin(), busy.cend(), QStringLiteral("yes"));
    if (!busy.isEmpty()) {
        std::printf("host load: %lld of %lld runs ran on a busy host (other processes or steal; LOAD busy below)\n",
                    static_cast<long long>(busyRuns), static_cast<long long>(busy.size()));
    }
}

// A run's connections in a few words (db/report connection_use.h): "SMC-R
// 1/1", "fell back: PEERNOSMC (SMC-R 3/4)", "OVER TCP: no SMC-R connection
// (SMC-R 0/2)"; empty for runs whose client did not propose SMC.
QString connectionsText(const report::ConnectionUse& use) {
    if (!use.judged) return QString();
    const QString counts =
        QStringLiteral("SMC-R %1/%2").arg(use.smcConnections).arg(use.smcConnections + use.tcpConnections);
    QString reasons = use.fallbackReasons.isEmpty() && use.smcConnections == 0 ? QStringLiteral("no SMC-R connection")
                                                                               : use.reasonsText();
    if (const double share = use.rdmaShare(); share >= 0 && share < report::kMinRdmaShare)
        reasons += QStringLiteral(", %1% of the bytes over RDMA").arg(QString::number(share * 100, 'f', 1));
    if (use.overTcp()) return QStringLiteral("OVER TCP: %1 (%2)").arg(reasons, counts);
    if (use.fellBack()) return QStringLiteral("fell back: %1 (%2)").arg(reasons, counts);
    return counts;
}

void printRuns(const QList<db::Run>& runs, const QMap<qint64, QString>& busy,
               const QMap<qint64, report::ConnectionUse>& connections) {
    int connectionsWidth = 11;
    for (const report::ConnectionUse& use : connections)
        connectionsWidth = std::max(connectionsWidth, static_cast<int>(connectionsText(use).size()));
    std::printf("runs:\n");
    std::printf("  %6s  %-9s %-6s %-22s %8s %4s  %-8s %-4s %-19s %-*s %s\n", "ID", "WORKLOAD", "TRANSP", "COLUMN",
                "SIZE", "REP", "STATUS", "LOAD", "FINISHED (UTC)", connectionsWidth, "CONNECTIONS", "ERROR");
    for (const db::Run& r : runs) {
        const QString load = busy.value(r.id) == QLatin1String("yes") ? QStringLiteral("busy") : QString();
        const QString line = QString::asprintf(
            "  %6lld  %-9s %-6s %-22s %8lld %4d  %-8s %-4s %-19s %-*s %s", static_cast<long long>(r.id),
            qPrintable(r.cell.workload), qPrintable(r.cell.transport), qPrintable(r.cell.column),
            static_cast<long long>(r.cell.msgSize), r.cell.repetition, qPrintable(db::statusName(r.status)),
            qPrintable(load), qPrintable(date(r.finishedAt)), connectionsWidth,
            qPrintable(connectionsText(connections.value(r.id))), qPrintable(r.error));
        std::printf("%s\n", qPrintable(trimRight(line)));
    }
}

// What each done run's connections did, from its counters.
std::optional<QMap<qint64, report::ConnectionUse>> runConnections(db::ResultStore& store, const QList<db::Run>& runs) {
    QMap<qint64, report::ConnectionUse> out;
    for (const db::Run& r : runs) {
        if (r.status != db::RunStatus::done) continue;
        auto counters = store.counters(r.id);
        if (!counters) {
            reportError("smclab show", counters.error());
            return std::nullopt;
        }
        out.insert(r.id, report::connectionUse(*counters));
    }
    return out;
}

// Runs of SMC columns whose connections fell back, summed up above the list.
void printConnectionSummary(const QMap<qint64, report::ConnectionUse>& connections) {
    int judged = 0, fellBack = 0, overTcp = 0;
    for (const report::ConnectionUse& use : connections) {
        judged += use.judged ? 1 : 0;
        fellBack += use.fellBack() && !use.overTcp() ? 1 : 0;
        overTcp += use.overTcp() ? 1 : 0;
    }
    if (judged == 0) return;
    std::printf("connections: %d run%s of SMC columns: %d on SMC-R, %d with fallbacks, %d over TCP (not SMC-R)\n",
                judged, judged == 1 ? "" : "s", judged - fellBack - overTcp, fellBack, overTcp);
}

}  // namespace

int runShow(const Args& args) {
    qint64 id = 0;
    QString dbPath;
    bool allSettings = false;
    if (const auto exitCode = parseShowArgs(args, &id, &dbPath, &allSettings)) return *exitCode;
    auto store = openExistingStore(dbPath, "smclab show");
    if (!store) return kExitFailure;
    auto campaign = store->campaign(id);
    if (!campaign) return reportError("smclab show", campaign.error());
    auto runs = store->runs(id);
    if (!runs) return reportError("smclab show", runs.error());
    auto columns = store->columns(id);
    if (!columns) return reportError("smclab show", columns.error());

    printCampaignHeader(*campaign);
    printMatrix(*runs);
    if (!printSettings(*store, *runs, *columns, allSettings)) return kExitFailure;
    auto wires = store->campaignRunFact(id, smcr::Side::client, QStringLiteral("wire"));
    if (!wires) return reportError("smclab show", wires.error());
    auto busy = store->campaignRunFact(id, smcr::Side::client, QStringLiteral("host_state.busy"));
    if (!busy) return reportError("smclab show", busy.error());
    printRunFacts(*wires, *busy);
    const auto connections = runConnections(*store, *runs);
    if (!connections) return kExitFailure;
    printConnectionSummary(*connections);
    printRuns(*runs, *busy, *connections);
    return kExitOk;
}

}  // namespace smclab::cli
