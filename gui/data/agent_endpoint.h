// A connected agent as the run page needs it: where it is and how to log in.
#pragma once

#include <QJsonObject>
#include <QList>
#include <QString>

namespace smclab::gui {

struct AgentEndpoint {
    QString address;  // "HOST:PORT"
    QString token;
    bool tls = false;
    // For the local lab's agents: the wire between them (locallab::WireRecord
    // as JSON), recorded with every run; empty for agents on lab hosts.
    QJsonObject wire;
};

}  // namespace smclab::gui
