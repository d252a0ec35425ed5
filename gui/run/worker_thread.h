// One job at a time on a thread of its own for an object that lives on the
// GUI thread: lab bring-up calls (SSH deploys, VM boots) block for seconds to
// minutes, so they run here, and what they report is posted back to the
// owner's thread, where its signals are emitted.
#pragma once

#include <atomic>
#include <functional>
#include <thread>

#include <QObject>

namespace smclab::gui {

class WorkerThread {
public:
    explicit WorkerThread(QObject* owner) : m_owner(owner) {}
    // Waits for the job in flight: the lab library's own timeouts bound it.
    ~WorkerThread() { join(); }
    WorkerThread(const WorkerThread&) = delete;
    WorkerThread& operator=(const WorkerThread&) = delete;

    bool busy() const { return m_busy.load(); }
    // Runs `job` on the worker thread; false (and nothing run) while a job is in flight.
    bool start(std::function<void()> job);
    // From the job: `call` runs on the owner's thread.
    void post(std::function<void()> call) const;
    // From the job, as its last word: on the owner's thread the worker is
    // free again, then `call` runs (so a slot it reaches may start the next job).
    void finish(std::function<void()> call);

private:
    void join();

    QObject* m_owner;
    std::thread m_worker;
    std::atomic<bool> m_busy{false};
};

}  // namespace smclab::gui
