// Named states, iperf3-style, so both ends (and logs) speak of the same
// moments. A session is one controller connection; a run is one workload
// side started by start_run. Names are what goes on the wire.
#pragma once

#include <smcr/side.h>

#include <QString>

namespace smclab::protocol {

enum class SessionState {
    invalid = 0,
    handshake,  // WebSocket upgrade and token check in progress
    idle,       // hello sent, no run of this session active
    running,    // at least one run of this session active
    closing,    // controller gone or agent shutting down; runs being stopped
};

enum class RunState {
    invalid = 0,
    accepted,  // start_run validated; worker not started yet
    starting,  // worker thread setting up (listen / connect)
    ready,     // server role: listening, run_ready sent
    running,   // traffic flowing, samples streaming
    stopping,  // stop requested (stop_run, disconnect, SIGTERM, duration over)
    finished,  // ran its duration; run_result sent
    stopped,   // ended early on request; run_result sent
    failed,    // ended with an error; run_result carries it
};

QString sessionStateName(SessionState state);
QString runStateName(RunState state);
RunState runStateFromName(const QString& name);
bool isTerminal(RunState state);

}  // namespace smclab::protocol
