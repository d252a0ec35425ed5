#include "app/app_settings.h"

#include <QDir>
#include <QJsonDocument>
#include <QMainWindow>
#include <QSettings>

#include "smclab/db/database_location.h"

namespace smclab::gui {

void AppSettings::saveWindow(const QMainWindow& window) {
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), window.saveGeometry());
    settings.setValue(QStringLiteral("window/state"), window.saveState());
}

void AppSettings::restoreWindow(QMainWindow& window) {
    QSettings settings;
    const QByteArray geometry = settings.value(QStringLiteral("window/geometry")).toByteArray();
    if (geometry.isEmpty() || !window.restoreGeometry(geometry)) window.resize(1280, 800);
    window.restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
}

QList<SavedHost> AppSettings::hosts() {
    QSettings settings;
    QList<SavedHost> out;
    const int count = settings.beginReadArray(QStringLiteral("hosts"));
    for (int i = 0; i < count; ++i) {
        settings.setArrayIndex(i);
        SavedHost host;
        host.address = settings.value(QStringLiteral("address")).toString();
        host.tls = settings.value(QStringLiteral("tls")).toBool();
        host.tokenFile = settings.value(QStringLiteral("tokenFile")).toString();
        if (!host.address.isEmpty()) out.append(host);
    }
    settings.endArray();
    return out;
}

void AppSettings::setHosts(const QList<SavedHost>& hosts) {
    QSettings settings;
    settings.remove(QStringLiteral("hosts"));
    settings.beginWriteArray(QStringLiteral("hosts"), static_cast<int>(hosts.size()));
    for (int i = 0; i < hosts.size(); ++i) {
        settings.setArrayIndex(i);
        settings.setValue(QStringLiteral("address"), hosts[i].address);
        settings.setValue(QStringLiteral("tls"), hosts[i].tls);
        settings.setValue(QStringLiteral("tokenFile"), hosts[i].tokenFile);
    }
    settings.endArray();
}

QJsonObject AppSettings::campaignDraft() {
    const QByteArray text = QSettings().value(QStringLiteral("campaign/draft")).toByteArray();
    return QJsonDocument::fromJson(text).object();
}

void AppSettings::setCampaignDraft(const QJsonObject& campaign) {
    QSettings().setValue(QStringLiteral("campaign/draft"), QJsonDocument(campaign).toJson(QJsonDocument::Compact));
}

QString AppSettings::lastCampaignFile() {
    return QSettings().value(QStringLiteral("campaign/lastFile")).toString();
}

void AppSettings::setLastCampaignFile(const QString& path) {
    QSettings().setValue(QStringLiteral("campaign/lastFile"), path);
}

QString AppSettings::lastDirectory() {
    return QSettings().value(QStringLiteral("paths/lastDirectory"), QDir::homePath()).toString();
}

void AppSettings::setLastDirectory(const QString& path) {
    QSettings().setValue(QStringLiteral("paths/lastDirectory"), path);
}

int AppSettings::lastPage() {
    return QSettings().value(QStringLiteral("window/page"), 0).toInt();
}

void AppSettings::setLastPage(int page) {
    QSettings().setValue(QStringLiteral("window/page"), page);
}

QString AppSettings::databasePath() {
    return QSettings().value(QStringLiteral("db/path")).toString();
}

void AppSettings::setDatabasePath(const QString& path) {
    QSettings().setValue(QStringLiteral("db/path"), path);
    const auto location = db::parseDatabaseLocation(path);
    if (!path.isEmpty() && !(location && location->backend == db::StoreBackend::postgresql))
        QSettings().setValue(QStringLiteral("db/lastSqlite"), path);
}

QString AppSettings::lastSqlitePath() {
    return QSettings().value(QStringLiteral("db/lastSqlite")).toString();
}

}  // namespace smclab::gui
