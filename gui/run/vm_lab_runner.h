// The VM lab hosts (agents/lab/vm) from the desktop: bring-up and power-off
// run on a worker thread (a TCG boot takes tens of seconds), their progress
// and outcome come back as signals on the GUI thread. The same library
// calls as `smclab lab vm up|down`, never a child smclab.
#pragma once

#include <QObject>
#include <QStringList>

#include "run/worker_thread.h"

namespace smclab::gui {

class VmLabRunner : public QObject {
    Q_OBJECT
public:
    explicit VmLabRunner(QObject* parent = nullptr);

    bool busy() const { return m_worker.busy(); }
    // Boots `count` hosts recorded in `labPath`; false when busy.
    bool startUp(const QString& labPath, int count);
    // Powers the lab's VM hosts off; false when busy.
    bool startDown(const QString& labPath);

signals:
    void progress(const QString& host, const QString& step);
    // ok: the hosts' names (they are in the lab file); else why.
    void upFinished(bool ok, const QStringList& hosts, const QString& why);
    void downFinished(bool ok, const QStringList& hosts, const QString& why);

private:
    WorkerThread m_worker{this};
};

}  // namespace smclab::gui
