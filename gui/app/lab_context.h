// What the pages share: one place to report errors and notices (shown in
// the window's message bar and status bar), the results database path, and
// the store the GUI thread reads from.
#pragma once

#include <memory>

#include <QObject>

namespace smclab::db {
class ResultStore;
}

namespace smclab::gui {

class LabContext : public QObject {
    Q_OBJECT
public:
    explicit LabContext(QObject* parent = nullptr);
    ~LabContext() override;

    void reportError(const QString& text) { emit errorReported(text); }
    void reportInfo(const QString& text) { emit infoReported(text); }

    // The database file: AppSettings, else SMCLAB_DB, else the default path.
    QString databasePath() const;
    void setDatabasePath(const QString& path);
    // The GUI thread's reader (opened on first use); null with the error
    // reported when the file cannot be opened. Writers live in the run
    // page's worker thread with their own connection.
    db::ResultStore* store();
    // Why the last store() found no database (empty once one opened): the
    // pages say that, not "no campaigns yet", beside the error.
    QString storeError() const { return m_storeError; }

signals:
    void errorReported(const QString& text);
    void infoReported(const QString& text);
    void databaseChanged(const QString& path);

private:
    QString m_databasePath;
    QString m_storeError;
    std::unique_ptr<db::ResultStore> m_store;
};

}  // namespace smclab::gui
