// An agent deployed on a lab host from the desktop: the lab library's SSH
// deploy (agents/lab/lab_deploy.h) on a worker thread, since ssh sessions
// and the agent's start take seconds to minutes; its steps and outcome come
// back as signals on the GUI thread. The same library call as
// `smclab lab deploy`, never a child smclab.
#pragma once

#include <QObject>
#include <QString>

#include "lab_deploy.h"
#include "run/worker_thread.h"

namespace smclab::gui {

class DeployRunner : public QObject {
    Q_OBJECT
public:
    explicit DeployRunner(QObject* parent = nullptr);

    bool busy() const { return m_worker.busy(); }
    // Deploys to `host` and records it in options.labPath; false when busy.
    bool start(const lab::DeployOptions& options, const QString& host);

signals:
    // A step or note as `smclab lab deploy` prints it (lab::deployNoteText).
    void progress(const QString& text);
    // ok: `host` is in the lab file; else why not, in the library's words.
    void finished(bool ok, const QString& host, const QString& why);

private:
    WorkerThread m_worker{this};
};

}  // namespace smclab::gui
