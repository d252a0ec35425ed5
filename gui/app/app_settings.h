// What smclab-gui remembers between sessions (QSettings): window geometry
// and state, the hosts last used, the last campaign file and directories.
// Raw tokens are never written; a host remembers the token file it used.
#pragma once

#include <QJsonObject>
#include <QList>
#include <QString>

class QMainWindow;

namespace smclab::gui {

struct SavedHost {
    QString address;  // "host:port"
    bool tls = false;
    QString tokenFile;
};

class AppSettings {
public:
    static void saveWindow(const QMainWindow& window);
    static void restoreWindow(QMainWindow& window);

    static QList<SavedHost> hosts();
    static void setHosts(const QList<SavedHost>& hosts);

    static QString lastCampaignFile();
    static void setLastCampaignFile(const QString& path);
    // The editor's campaign at the last quit (orchestrator JSON; empty when none).
    static QJsonObject campaignDraft();
    static void setCampaignDraft(const QJsonObject& campaign);
    static QString lastDirectory();
    static void setLastDirectory(const QString& path);
    static int lastPage();
    static void setLastPage(int page);
    // The results database; empty means the db module's default path.
    static QString databasePath();
    static void setDatabasePath(const QString& path);
    // The last SQLite file chosen (setDatabasePath() keeps it): the database
    // dialog offers it again after a PostgreSQL server.
    static QString lastSqlitePath();
};

}  // namespace smclab::gui
