#include "agent_hello.h"

#include <QCoreApplication>
#include <QEventLoop>
#include <QTimer>

#include "protocol/agent_client.h"

namespace smclab::lab {

smcr::Result<protocol::Hello> fetchHello(const QString& host, quint16 port, const QString& token, int timeoutMs) {
    if (QCoreApplication::instance() == nullptr)
        return smcr::fail(smcr::Errc::invalidState,
                          "fetchHello needs a QCoreApplication (its event loop runs the client)");
    smclab::AgentClient client;
    QEventLoop loop;
    QString failure;
    bool ready = false;
    QObject::connect(&client, &AgentClient::helloReceived, &loop, [&] {
        ready = true;
        loop.quit();
    });
    QObject::connect(&client, &AgentClient::connectionFailed, &loop, [&](const QString& message) {
        failure = message;
        loop.quit();
    });
    QTimer::singleShot(timeoutMs + 1000, &loop, &QEventLoop::quit);
    smclab::AgentConnectOptions options;
    options.token = token;
    options.connectTimeoutMs = timeoutMs;
    client.connectToAgent(host, port, options);
    loop.exec();
    if (!ready) {
        return smcr::fail(smcr::Errc::connectionRefused,
                          QStringLiteral("%1:%2: %3")
                              .arg(host)
                              .arg(port)
                              .arg(failure.isEmpty() ? QStringLiteral("no hello in time") : failure)
                              .toStdString());
    }
    protocol::Hello hello = client.hello();
    client.disconnectFromAgent();
    return hello;
}

}  // namespace smclab::lab
