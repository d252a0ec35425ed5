// smclab list: the campaigns in the results database.
#include <cstdio>

#include <QFileInfo>

#include "args.h"
#include "commands.h"
#include "smclab/db/database_location.h"
#include "smclab/db/database_path.h"
#include "store_cli.h"

namespace smclab::cli {

namespace {

void printListHelp() {
    std::printf(
        "usage: smclab list [--db PATH]\n"
        "\n"
        "Lists the campaigns in the results database, newest first: id, name,\n"
        "preset, status, runs done of planned (and failed), creation date (UTC).\n"
        "\n"
        "options:\n"
        "  --db PATH   results database, a file or postgresql://USER@HOST[:PORT]/DB (default: $%s, else %s)\n",
        db::kDatabaseEnv, qPrintable(db::defaultDatabasePath()));
}

QString clip(const QString& text, int width) {
    return text.size() <= width ? text : text.left(width - 1) + QStringLiteral("~");
}

}  // namespace

int runList(const Args& args) {
    ArgCursor cursor(args);
    QString dbPath;
    while (!cursor.done()) {
        if (cursor.takeFlag("--help") || cursor.takeFlag("-h")) {
            printListHelp();
            return kExitOk;
        }
        if (auto v = cursor.takeValue("--db")) {
            dbPath = QString::fromStdString(*v);
        } else {
            cursor.setError("unexpected argument '" + cursor.peek() + "'");
            break;
        }
    }
    if (!cursor.error().empty()) {
        std::fprintf(stderr, "smclab list: %s\n(see smclab list --help)\n", cursor.error().c_str());
        return kExitUsage;
    }
    auto store = openExistingStore(dbPath, "smclab list", true);
    if (!store) {
        const QString path = db::resolveDatabasePath(dbPath);
        if (db::isPostgresUrl(path) || QFileInfo::exists(path))
            return kExitFailure;  // opened but failed: already explained
        std::printf("no campaigns yet (no database at %s)\n", qPrintable(path));
        return kExitOk;
    }
    auto campaigns = store->listCampaigns();
    if (!campaigns) return reportError("smclab list", campaigns.error());
    if (campaigns->isEmpty()) {
        std::printf("no campaigns yet in %s\n", qPrintable(store->path()));
        return kExitOk;
    }
    std::printf("%5s  %-28s %-14s %-8s %-20s %s\n", "ID", "NAME", "PRESET", "STATUS", "RUNS", "CREATED (UTC)");
    for (const db::Campaign& c : *campaigns) {
        QString runs = QStringLiteral("%1/%2").arg(c.runsDone).arg(c.runsTotal);
        if (c.runsFailed > 0) runs += QStringLiteral(", %1 failed").arg(c.runsFailed);
        std::printf("%5lld  %-28s %-14s %-8s %-20s %s\n", static_cast<long long>(c.id), qPrintable(clip(c.name, 28)),
                    qPrintable(clip(c.preset.isEmpty() ? QStringLiteral("-") : c.preset, 14)),
                    qPrintable(db::statusName(c.status)), qPrintable(runs),
                    qPrintable(c.createdAt.toUTC().toString(QStringLiteral("yyyy-MM-dd HH:mm"))));
    }
    return kExitOk;
}

}  // namespace smclab::cli
