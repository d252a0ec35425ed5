#include "run/deploy_runner.h"

#include <QMetaObject>

namespace smclab::gui {

DeployRunner::DeployRunner(QObject* parent) : QObject(parent) {}

DeployRunner::~DeployRunner() {
    join();
}

void DeployRunner::join() {
    if (m_worker.joinable()) m_worker.join();
}

bool DeployRunner::start(const lab::DeployOptions& options, const QString& host) {
    if (m_busy.exchange(true)) return false;
    join();
    m_worker = std::thread([this, options, host] {
        auto deployed = lab::deployAgentToLabFile(options, host, [this](const lab::DeployNote& note) {
            QMetaObject::invokeMethod(
                this, [this, text = lab::deployNoteText(note)] { emit progress(text); }, Qt::QueuedConnection);
        });
        const bool ok = deployed.ok();
        const QString why = ok ? QString() : QString::fromStdString(deployed.error().message);
        QMetaObject::invokeMethod(
            this,
            [this, ok, host, why] {
                m_busy = false;
                emit finished(ok, host, why);
            },
            Qt::QueuedConnection);
    });
    return true;
}

}  // namespace smclab::gui
