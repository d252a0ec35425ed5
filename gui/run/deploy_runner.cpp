#include "run/deploy_runner.h"

namespace smclab::gui {

DeployRunner::DeployRunner(QObject* parent) : QObject(parent) {}

bool DeployRunner::start(const lab::DeployOptions& options, const QString& host) {
    return m_worker.start([this, options, host] {
        auto deployed = lab::deployAgentToLabFile(options, host, [this](const lab::DeployNote& note) {
            m_worker.post([this, text = lab::deployNoteText(note)] { emit progress(text); });
        });
        const bool ok = deployed.ok();
        const QString why = ok ? QString() : QString::fromStdString(deployed.error().message);
        m_worker.finish([this, ok, host, why] { emit finished(ok, host, why); });
    });
}

}  // namespace smclab::gui
