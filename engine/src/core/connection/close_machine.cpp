#include "core/connection/close_machine.h"

namespace smcr::core {

const char* closeStateName(CloseState state) {
    switch (state) {
        case CloseState::active:
            return "ACTIVE";
        case CloseState::peerCloseWait1:
            return "PEERCLOSEWAIT1";
        case CloseState::peerCloseWait2:
            return "PEERCLOSEWAIT2";
        case CloseState::appCloseWait1:
            return "APPCLOSEWAIT1";
        case CloseState::appCloseWait2:
            return "APPCLOSEWAIT2";
        case CloseState::appFinCloseWait:
            return "APPFINCLOSEWAIT";
        case CloseState::peerFinCloseWait:
            return "PEERFINCLOSEWAIT";
        case CloseState::processAbort:
            return "PROCESSABORT";
        case CloseState::closed:
            return "CLOSED";
    }
    return "?";
}

CloseState CloseMachine::state() const {
    if (m_aborted) return m_appClosed ? CloseState::closed : CloseState::processAbort;
    if (m_sentClosed && m_peerClosed) return CloseState::closed;
    if (m_peerClosed) return CloseState::appCloseWait2;
    const bool weDone = m_sentDoneWriting || m_sentClosed;
    if (!weDone && !m_peerDoneWriting) return CloseState::active;
    if (weDone && !m_peerDoneWriting) return CloseState::peerCloseWait1;
    if (!weDone) return CloseState::appCloseWait1;
    if (m_weClosedFirst) return CloseState::peerCloseWait2;
    return m_sentClosed ? CloseState::peerFinCloseWait : CloseState::appFinCloseWait;
}

CloseActions CloseMachine::on(CloseEvent event) {
    CloseActions out;
    const bool anySent = m_sentDoneWriting || m_sentClosed;
    const bool peerAny = m_peerDoneWriting || m_peerClosed;
    switch (event) {
        case CloseEvent::appShutdownWrite:
            if (m_aborted || anySent) break;
            if (!peerAny) m_weClosedFirst = true;
            m_sentDoneWriting = true;
            out.sendDoneWriting = true;
            break;
        case CloseEvent::appClose:
            m_appClosed = true;
            if (m_aborted || m_sentClosed) break;
            if (!anySent && !peerAny) m_weClosedFirst = true;
            m_sentClosed = true;
            out.sendConnClosed = true;
            break;
        case CloseEvent::appCloseUnreadData:
        case CloseEvent::appAbort:
            m_appClosed = true;
            if (m_aborted) break;
            // After a peer-closed and our closed there is nobody left to reset.
            if (!(m_sentClosed && m_peerClosed)) out.sendAbnormalClose = true;
            m_aborted = true;
            break;
        case CloseEvent::peerDoneWriting:
            if (m_aborted || peerAny) break;
            m_peerDoneWriting = true;
            out.readerEof = true;
            break;
        case CloseEvent::peerConnClosed:
            if (m_aborted || m_peerClosed) break;
            if (!m_peerDoneWriting) out.readerEof = true;
            m_peerClosed = true;
            m_peerDoneWriting = true;
            break;
        case CloseEvent::peerAbnormalClose:
            if (m_aborted || (m_sentClosed && m_peerClosed)) break;
            m_aborted = true;
            m_error = Errc::connectionReset;
            out.readerEof = true;
            out.error = m_error;
            break;
        case CloseEvent::linkGroupLost:
            if (m_aborted || (m_sentClosed && m_peerClosed)) break;
            m_aborted = true;
            m_error = Errc::connectionAborted;
            out.readerEof = true;
            out.error = m_error;
            break;
    }
    return out;
}

}  // namespace smcr::core
