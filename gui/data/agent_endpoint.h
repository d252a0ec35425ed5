// A connected agent as the run page needs it: where it is and how to log in.
#pragma once

#include <QList>
#include <QString>

namespace smclab::gui {

struct AgentEndpoint {
    QString address;  // "HOST:PORT"
    QString token;
    bool tls = false;
};

}  // namespace smclab::gui
