#include "run/vm_lab_runner.h"

#include <QMetaObject>

#include "vm_hosts.h"

namespace smclab::gui {

VmLabRunner::VmLabRunner(QObject* parent) : QObject(parent) {}

VmLabRunner::~VmLabRunner() {
    join();
}

void VmLabRunner::join() {
    if (m_worker.joinable()) m_worker.join();
}

bool VmLabRunner::startUp(const QString& labPath, int count) {
    if (m_busy.exchange(true)) return false;
    join();
    m_worker = std::thread([this, labPath, count] {
        lab::vm::VmUpOptions options;
        options.labPath = labPath;
        options.count = count;
        auto up = lab::vm::vmUp(options, [this](const QString& host, const QString& step) {
            QMetaObject::invokeMethod(
                this, [this, host, step] { emit progress(host, step); }, Qt::QueuedConnection);
        });
        QStringList hosts;
        QString why;
        if (up) {
            for (const lab::vm::VmHostUp& h : *up) hosts << h.host.host;
        } else {
            why = QString::fromStdString(up.error().message);
        }
        const bool ok = up.ok();
        QMetaObject::invokeMethod(
            this,
            [this, ok, hosts, why] {
                m_busy = false;
                emit upFinished(ok, hosts, why);
            },
            Qt::QueuedConnection);
    });
    return true;
}

bool VmLabRunner::startDown(const QString& labPath) {
    if (m_busy.exchange(true)) return false;
    join();
    m_worker = std::thread([this, labPath] {
        auto down = lab::vm::vmDown(labPath, {});
        const bool ok = down.ok();
        const QStringList hosts = ok ? *down : QStringList();
        const QString why = ok ? QString() : QString::fromStdString(down.error().message);
        QMetaObject::invokeMethod(
            this,
            [this, ok, hosts, why] {
                m_busy = false;
                emit downFinished(ok, hosts, why);
            },
            Qt::QueuedConnection);
    });
    return true;
}

}  // namespace smclab::gui
