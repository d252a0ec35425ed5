#include "run/local_lab.h"

#include <QCoreApplication>
#include <QMetaObject>

#include "orchestrator/datapath_columns.h"

namespace smclab::gui {

LocalLab::LocalLab(QObject* parent) : QObject(parent), m_lab(std::make_unique<locallab::LocalLab>()) {
    // Normal quit: the window may outlive the event loop (e.g. owned by
    // main()'s stack), so stop the agents as the loop ends.
    if (QCoreApplication* app = QCoreApplication::instance())
        connect(app, &QCoreApplication::aboutToQuit, this, &LocalLab::shutdown);
}

LocalLab::~LocalLab() {
    shutdown();
}

QString LocalLab::agentProgram() {
    return locallab::LocalAgents::findAgentProgram();
}

QStringList LocalLab::linkModels() {
    // smcr::fabric::sim::linkPreset's names (engine/include/smcr/fabric_sim.h).
    return {QStringLiteral("cx4lx-vf"), QStringLiteral("cx4-25g"), QStringLiteral("ideal")};
}

QString LocalLab::defaultLinkModel() {
    return QLatin1String(orchestrator::kDatapathLink);
}

QString LocalLab::token() const {
    return m_lab->agents().token();
}

QString LocalLab::tokenFile() const {
    return m_lab->agents().tokenFile();
}

bool LocalLab::start(const QString& linkModel, int count) {
    shutdown();
    if (const smcr::Status status = m_lab->start(linkModel, count); !status) {
        const QString error = tr("Cannot start the local lab: %1").arg(QString::fromStdString(status.error().message));
        QMetaObject::invokeMethod(
            this, [this, error] { emit failed(error); }, Qt::QueuedConnection);
        return false;
    }
    m_addresses = m_lab->agents().addresses();
    const QStringList addresses = m_addresses;
    QMetaObject::invokeMethod(
        this,
        [this, addresses] {
            // Not if the lab was stopped or restarted in the meantime.
            if (m_addresses != addresses) return;
            for (const QString& address : addresses) emit agentStarted(address);
            emit allStarted(addresses);
        },
        Qt::QueuedConnection);
    return true;
}

QList<qint64> LocalLab::processIds() const {
    return m_lab->agents().processIds();
}

void LocalLab::shutdown() {
    m_lab->stop();  // the agents first, then the namespace they live in
    m_addresses.clear();
}

}  // namespace smclab::gui
