// smclab-agent logs to stderr, one line per event, with a UTC timestamp and
// a level, so several agents' logs can be merged and sorted.
#pragma once

namespace smclab::daemon {

// Routes qDebug/qInfo/qWarning/qCritical to stderr as
// "2026-11-30T07:30:13.123Z smclab-agent[1234] info: message".
void installLogHandler();

}  // namespace smclab::daemon
