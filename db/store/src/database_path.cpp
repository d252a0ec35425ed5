#include "smclab/db/database_path.h"

#include <QCoreApplication>
#include <QDir>
#include <QStandardPaths>

namespace smclab::db {

QString defaultDatabasePath() {
    // AppDataLocation includes the application name; the CLI, the agent and
    // the GUI must agree on it, whatever QCoreApplication says.
    const QString previous = QCoreApplication::applicationName();
    QCoreApplication::setApplicationName(QStringLiteral("smclab"));
    const QString organization = QCoreApplication::organizationName();
    QCoreApplication::setOrganizationName(QString());
    QString dir = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
    QCoreApplication::setOrganizationName(organization);
    QCoreApplication::setApplicationName(previous);
    if (dir.isEmpty()) dir = QDir::homePath() + QStringLiteral("/.local/share/smclab");
    return dir + QLatin1Char('/') + QLatin1String(kDatabaseFileName);
}

QString resolveDatabasePath(const QString& explicitPath) {
    if (!explicitPath.isEmpty()) return explicitPath;
    QString fromEnv = qEnvironmentVariable(kDatabaseEnv);
    if (!fromEnv.isEmpty()) return fromEnv;
    return defaultDatabasePath();
}

}  // namespace smclab::db
