// One synchronous look at an agent: connect with its token, take the hello
// (version, capabilities), disconnect. For `smclab lab deploy` (the check
// that the agent it started answers) and `smclab lab status`.
#pragma once

#include <smcr/result.h>

#include <QString>

#include "protocol/hello.h"

namespace smclab::lab {

smcr::Result<protocol::Hello> fetchHello(const QString& host, quint16 port, const QString& token,
                                         int timeoutMs = 10'000);

}  // namespace smclab::lab
