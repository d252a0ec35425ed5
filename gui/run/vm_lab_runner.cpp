#include "run/vm_lab_runner.h"

#include "vm_hosts.h"

namespace smclab::gui {

VmLabRunner::VmLabRunner(QObject* parent) : QObject(parent) {}

bool VmLabRunner::startUp(const QString& labPath, int count) {
    return m_worker.start([this, labPath, count] {
        lab::vm::VmUpOptions options;
        options.labPath = labPath;
        options.count = count;
        auto up = lab::vm::vmUp(options, [this](const QString& host, const QString& step) {
            m_worker.post([this, host, step] { emit progress(host, step); });
        });
        QStringList hosts;
        QString why;
        if (up) {
            for (const lab::vm::VmHostUp& h : *up) hosts << h.host.host;
        } else {
            why = QString::fromStdString(up.error().message);
        }
        const bool ok = up.ok();
        m_worker.finish([this, ok, hosts, why] { emit upFinished(ok, hosts, why); });
    });
}

bool VmLabRunner::startDown(const QString& labPath) {
    return m_worker.start([this, labPath] {
        auto down = lab::vm::vmDown(labPath, {});
        const bool ok = down.ok();
        const QStringList hosts = ok ? *down : QStringList();
        const QString why = ok ? QString() : QString::fromStdString(down.error().message);
        m_worker.finish([this, ok, hosts, why] { emit downFinished(ok, hosts, why); });
    });
}

}  // namespace smclab::gui
