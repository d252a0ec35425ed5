#include "run/worker_thread.h"

#include <QMetaObject>

namespace smclab::gui {

bool WorkerThread::start(std::function<void()> job) {
    if (m_busy.exchange(true)) return false;
    join();
    m_worker = std::thread(std::move(job));
    return true;
}

void WorkerThread::post(std::function<void()> call) const {
    QMetaObject::invokeMethod(m_owner, std::move(call), Qt::QueuedConnection);
}

void WorkerThread::finish(std::function<void()> call) {
    post([this, call = std::move(call)] {
        m_busy = false;
        call();
    });
}

void WorkerThread::join() {
    if (m_worker.joinable()) m_worker.join();
}

}  // namespace smclab::gui
