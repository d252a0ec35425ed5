// When the send path pushes and when it holds data back, without I/O: the
// datapath series of 2022 (seed 000 patches 2-4 and 7, seed 002; summary in
// smc-protocol.md section 5). The shell (engine_push.cpp) feeds events in and
// acts on the decisions; each rule can be turned back to its pre-2022 form by
// a setting, so the lab can compare both.
//
// - Autocorking (autocorking_size): a send is corked while a CDC we posted is
//   still outstanding and the unsent bytes stay within min(autocorking_size,
//   sndbuf/2); the completion of the last outstanding CDC pushes. The first
//   message never corks: with no CDC outstanding there is nothing to wait for,
//   so autocorking adds no latency.
// - TCP_CORK / MSG_MORE / sendfile pieces that more pieces follow
//   (MSG_SENDPAGE_NOTLAST): data waits, without a timer, while the sndbuf has
//   room; clearing TCP_CORK pushes at once. lab.cork_timer_ms > 0 restores the
//   old delayed work: corked data leaves when the timer fires, uncork only
//   schedules that work, and sendfile pieces do not cork.
// - TCP_NODELAY set: pending data is pushed at once by the caller.
// - Only one pusher at a time; a push attempted meanwhile is remembered and
//   the pusher goes round again, so no data is left behind.
// - Completions and incoming CDCs that would push while an application thread
//   is inside the socket mark the connection instead; that thread pushes when
//   it leaves (the kernel's release_cb).
//
// These are the rules; ConnectionCore (connection_core.h) keeps the state
// they run on and turns each event into what the shell does next.
#pragma once

#include <cstdint>

namespace smcr::core {

// lab.cq_mode: how a woken thread drains the completion queues.
enum class CqMode : uint8_t {
    drainThenArm = 0,  // poll batches until a short one, arm with missed-event reporting, poll again if missed
    armFirst = 1,      // arm, then poll (pre-2022: arm after the first poll, missed events ignored)
};

// Who wants a push.
enum class PushOrigin : uint8_t {
    invalid = 0,
    app,          // a send by the application
    completion,   // the last outstanding CDC completed (autocorked data)
    cdcReceived,  // the peer freed RMBE space or asked for our cursor
    nodelay,      // TCP_NODELAY was set
    uncork,       // TCP_CORK was cleared, or shutdown/close
    corkTimer,    // lab.cork_timer_ms expired (background thread)
    owner,        // the owner leaving the socket runs a deferred push
};

// Pushes by the application thread in its socket call, as opposed to those
// done while handling a completion or a CDC (any thread) or by the timer.
bool appContext(PushOrigin origin);
// Pushes that tx deferral hands to an application thread inside the socket.
bool deferrable(PushOrigin origin);

enum class SendDecision : uint8_t {
    invalid = 0,
    push,      // write now
    autocork,  // hold: a CDC is outstanding and little is unsent
    userCork,  // hold: TCP_CORK, MSG_MORE or a non-last sendfile piece, and the sndbuf has room
};

struct SendCorkInput {
    uint64_t unsentBytes = 0;  // prepared but not yet written, this send's bytes included
    uint32_t pendingCdcs = 0;  // CDCs posted whose send completion has not arrived
    uint32_t sndbufBytes = 0;
    uint32_t sndbufFreeBytes = 0;  // after this send's copy
    uint64_t autocorkingSize = 0;  // the setting; 0 = off
    bool msgMore = false;
    bool tcpCork = false;
    bool notLast = false;    // a sendfile piece that more pieces follow
    bool timerMode = false;  // lab.cork_timer_ms > 0
};

// min(autocorking_size, sndbuf/2): the most a push may gather while corked.
uint64_t autocorkLimitBytes(uint64_t autocorkingSize, uint32_t sndbufBytes);

// The kernel's smc_tx_should_cork: autocork first, then the user's cork.
SendDecision decideAfterSend(const SendCorkInput& in);
// Whether TCP_CORK / MSG_MORE / a sendfile piece holds the unsent bytes
// (also when autocorking decided first). Pre-2022 (timerMode) the cork held
// only while more than half the sndbuf was free.
bool userCorkHolds(const SendCorkInput& in);

// The completion of a CDC: push when it was the last outstanding one and
// data waits that the user has not corked.
bool pushOnCdcComplete(uint32_t pendingCdcsAfter, uint64_t unsentBytes, bool userCorked);

// tx deferral: a deferrable push while an application thread is inside.
bool deferToOwner(PushOrigin origin, bool deferEnabled, uint32_t owners);

// One pusher at a time (the kernel's tx_pushing counter). Single-threaded
// here (the engine mutex is held), it catches re-entry: a flush that leads
// back to a push of the same connection.
class PushGate {
public:
    // true: the caller pushes now; false: a push is running, the attempt is remembered.
    bool enter() { return ++m_attempts == 1; }
    // The pusher finished a round: true when it must push again.
    bool again() {
        if (m_attempts > 1) {
            m_attempts = 1;
            return true;
        }
        m_attempts = 0;
        return false;
    }
    bool busy() const { return m_attempts > 0; }

private:
    uint32_t m_attempts = 0;
};

// What a send call says about holding its bytes.
struct SendHints {
    bool msgMore = false;  // MSG_MORE
    bool tcpCork = false;  // TCP_CORK is set
    bool notLast = false;  // a sendfile piece that more pieces follow (MSG_SENDPAGE_NOTLAST)
};

}  // namespace smcr::core
