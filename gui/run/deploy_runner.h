// An agent deployed on a lab host from the desktop: the lab library's SSH
// deploy (agents/lab/lab_deploy.h) on a worker thread, since ssh sessions
// and the agent's start take seconds to minutes; its steps and outcome come
// back as signals on the GUI thread. The same library call as
// `smclab lab deploy`, never a child smclab.
#pragma once

#include <atomic>
#include <thread>

#include <QObject>
#include <QString>

#include "lab_deploy.h"

namespace smclab::gui {

class DeployRunner : public QObject {
    Q_OBJECT
public:
    explicit DeployRunner(QObject* parent = nullptr);
    // Waits for a deploy in flight: ssh's own timeouts bound it.
    ~DeployRunner() override;

    bool busy() const { return m_busy.load(); }
    // Deploys to `host` and records it in options.labPath; false when busy.
    bool start(const lab::DeployOptions& options, const QString& host);

signals:
    // A step or note as `smclab lab deploy` prints it (lab::deployNoteText).
    void progress(const QString& text);
    // ok: `host` is in the lab file; else why not, in the library's words.
    void finished(bool ok, const QString& host, const QString& why);

private:
    void join();

    std::thread m_worker;
    std::atomic<bool> m_busy{false};
};

}  // namespace smclab::gui
