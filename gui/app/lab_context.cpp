#include "app/lab_context.h"

#include "app/app_settings.h"
#include "smclab/db/database_path.h"
#include "smclab/db/result_store.h"

namespace smclab::gui {

LabContext::LabContext(QObject* parent)
    : QObject(parent), m_databasePath(db::resolveDatabasePath(AppSettings::databasePath())) {}

LabContext::~LabContext() = default;

QString LabContext::databasePath() const {
    return m_databasePath;
}

void LabContext::setDatabasePath(const QString& path) {
    const QString resolved = db::resolveDatabasePath(path);
    if (resolved == m_databasePath) return;
    m_store.reset();
    m_storeError.clear();
    m_databasePath = resolved;
    emit databaseChanged(resolved);
}

db::ResultStore* LabContext::store() {
    if (m_store) return m_store.get();
    auto opened = db::ResultStore::open(m_databasePath);
    if (!opened) {
        m_storeError = QString::fromStdString(opened.error().message);
        reportError(tr("Cannot open the results database: %1").arg(m_storeError));
        return nullptr;
    }
    m_storeError.clear();
    m_store = std::move(opened.value());
    return m_store.get();
}

}  // namespace smclab::gui
