#include "store_cli.h"

#include <cstdio>

#include <QFileInfo>
#include <QSaveFile>

#include "args.h"
#include "campaign_console.h"
#include "command.h"
#include "smclab/db/database_location.h"
#include "smclab/db/database_path.h"

namespace smclab::cli {

std::unique_ptr<db::ResultStore> openExistingStore(const QString& dbPath, const char* command, bool mayBeMissing) {
    ensureCoreApplication();
    const QString path = db::resolveDatabasePath(dbPath);
    // A server's database is there or the open below says why; a file may simply not exist yet.
    if (!db::isPostgresUrl(path) && !QFileInfo::exists(path)) {
        if (!mayBeMissing) {
            std::fprintf(stderr, "%s: no results database at %s (run a campaign first, or pass --db PATH)\n", command,
                         qPrintable(path));
        }
        return nullptr;
    }
    auto store = db::ResultStore::open(path);
    if (!store) {
        reportError(command, store.error());
        return nullptr;
    }
    return std::move(store).value();
}

std::optional<qint64> parseCampaignId(const std::string& text) {
    std::string digits = text;
    if (!digits.empty() && digits[0] == '#') digits.erase(0, 1);
    auto value = parseInt(digits);
    if (!value || *value <= 0) return std::nullopt;
    return *value;
}

int reportError(const char* command, const smcr::Error& error) {
    std::fprintf(stderr, "%s: %s\n", command, error.message.c_str());
    return error.code == smcr::Errc::invalidArgument ? kExitUsage : kExitFailure;
}

bool writeOutput(const char* command, const QString& path, const QString& text) {
    const QByteArray bytes = text.toUtf8();
    if (path.isEmpty() || path == QLatin1String("-")) {
        std::fwrite(bytes.constData(), 1, static_cast<size_t>(bytes.size()), stdout);
        std::fflush(stdout);
        return true;
    }
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.commit()) {
        std::fprintf(stderr, "%s: cannot write %s: %s\n", command, qPrintable(path), qPrintable(file.errorString()));
        return false;
    }
    std::fprintf(stderr, "%s: wrote %s\n", command, qPrintable(path));
    return true;
}

}  // namespace smclab::cli
