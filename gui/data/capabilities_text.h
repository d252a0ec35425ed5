// An agent's hello as a readable form (rich text for a QLabel/QTextBrowser):
// host, transports and fabrics with the reason each unavailable one gives,
// RDMA devices, network interfaces, workloads and limits. The raw JSON stays
// one button away on the Hosts page.
#pragma once

#include <QString>

#include "protocol/hello.h"

namespace smclab::gui {

QString capabilitiesHtml(const QString& address, const protocol::Hello& hello);

}  // namespace smclab::gui
