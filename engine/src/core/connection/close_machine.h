// Orderly close and abort of one SMC-R connection, without I/O
// (smc-protocol.md section 7; the state names are Linux smc_close.c's).
//
// The machine records what each side has said (done writing, closed,
// aborted) and derives the state from it, so no transition can leave the
// flags and the state out of step. Draining the sndbuf before a close flag
// goes out is the shell's job: it feeds appShutdownWrite/appClose only once
// every prepared byte was handed to the fabric (or the drain timed out).
#pragma once

#include <cstdint>

#include <smcr/result.h>

namespace smcr::core {

enum class CloseState : uint8_t {
    active = 0,
    peerCloseWait1,    // we said done-writing/closed first; the peer said nothing yet
    peerCloseWait2,    // we closed first; the peer is done writing but not closed
    appCloseWait1,     // the peer is done writing; the application has not closed
    appCloseWait2,     // the peer closed; the application has not closed
    appFinCloseWait,   // the peer is done writing, we are done writing, nobody closed
    peerFinCloseWait,  // the peer is done writing, we closed, waiting for its close
    processAbort,      // aborted (peer reset or link group lost), the application must close
    closed,
};
const char* closeStateName(CloseState state);

enum class CloseEvent : uint8_t {
    appShutdownWrite = 0,  // shutdown(SHUT_WR) after draining the sndbuf
    appClose,              // close() with no unread data
    appCloseUnreadData,    // close() while received data is unread: abnormal close (like RST)
    appAbort,              // explicit abort (SO_LINGER 0)
    peerDoneWriting,       // CDC with peer-done-writing
    peerConnClosed,        // CDC with peer-connection-closed
    peerAbnormalClose,     // CDC with peer-abnormal-close
    linkGroupLost,         // the link group terminated under the connection
};

// CDC flags to send now and what the application must be told.
struct CloseActions {
    bool sendDoneWriting = false;
    bool sendConnClosed = false;
    bool sendAbnormalClose = false;
    bool readerEof = false;      // recv() returns 0 once the readable bytes are consumed
    Errc error = Errc::invalid;  // connectionReset / connectionAborted when it just failed
};

class CloseMachine {
public:
    CloseState state() const;
    CloseActions on(CloseEvent event);

    // Whether the application may still send / expect more bytes.
    bool canSend() const { return !m_sentDoneWriting && !m_sentClosed && !m_aborted && !m_peerClosed; }
    bool peerDone() const { return m_peerDoneWriting || m_peerClosed || m_aborted; }
    bool peerClosed() const { return m_peerClosed; }
    bool appClosed() const { return m_appClosed; }
    bool aborted() const { return m_aborted; }
    // The error sends and receives report once aborted (invalid while healthy).
    Errc error() const { return m_error; }
    // Once closed the RMB can go back to the pool: the peer no longer writes.
    bool finished() const { return state() == CloseState::closed; }

private:
    bool m_appClosed = false;
    bool m_sentDoneWriting = false;
    bool m_sentClosed = false;
    bool m_peerDoneWriting = false;
    bool m_peerClosed = false;
    bool m_aborted = false;
    bool m_weClosedFirst = false;
    Errc m_error = Errc::invalid;
};

}  // namespace smcr::core
