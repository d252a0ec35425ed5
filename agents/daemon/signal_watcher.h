// Turns SIGTERM and SIGINT into a Qt signal on the event loop: the handler
// only writes the signal number to a pipe (async-signal-safe), and a
// QSocketNotifier on the pipe's read end emits terminationRequested().
#pragma once

#include <memory>

#include <QObject>
#include <QSocketNotifier>

namespace smclab::daemon {

class SignalWatcher : public QObject {
    Q_OBJECT
public:
    explicit SignalWatcher(QObject* parent = nullptr);
    ~SignalWatcher() override;
    bool ok() const { return m_notifier != nullptr; }

signals:
    void terminationRequested(int signalNumber);

private:
    void onReadable();
    std::unique_ptr<QSocketNotifier> m_notifier;
};

}  // namespace smclab::daemon
