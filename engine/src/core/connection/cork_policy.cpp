#include "core/connection/cork_policy.h"

#include <algorithm>

namespace smcr::core {

bool appContext(PushOrigin origin) {
    return origin == PushOrigin::app || origin == PushOrigin::nodelay || origin == PushOrigin::uncork ||
           origin == PushOrigin::owner;
}

bool deferrable(PushOrigin origin) {
    return origin == PushOrigin::completion || origin == PushOrigin::cdcReceived;
}

uint64_t autocorkLimitBytes(uint64_t autocorkingSize, uint32_t sndbufBytes) {
    return std::min<uint64_t>(autocorkingSize, sndbufBytes / 2);
}

SendDecision decideAfterSend(const SendCorkInput& in) {
    if (in.unsentBytes == 0) return SendDecision::push;  // nothing to hold
    // Autocorking (seed 000 patch 2): the CQE of the outstanding CDC comes
    // shortly and gives the next sends a chance to share one RDMA WRITE.
    if (in.autocorkingSize != 0 && in.pendingCdcs > 0 &&
        in.unsentBytes <= autocorkLimitBytes(in.autocorkingSize, in.sndbufBytes)) {
        return SendDecision::autocork;
    }
    return userCorkHolds(in) ? SendDecision::userCork : SendDecision::push;
}

bool userCorkHolds(const SendCorkInput& in) {
    if (in.unsentBytes == 0) return false;
    // The user's cork holds while the sndbuf has room (a full sndbuf must
    // drain or the sender would wait forever). The old kernel did not cork
    // sendfile pieces (seed 002 patch 3 added MSG_SENDPAGE_NOTLAST) and
    // corked only while more than half the sndbuf was free.
    if (in.timerMode) return (in.msgMore || in.tcpCork) && in.sndbufFreeBytes > in.sndbufBytes / 2;
    return (in.msgMore || in.tcpCork || in.notLast) && in.sndbufFreeBytes > 0;
}

bool pushOnCdcComplete(uint32_t pendingCdcsAfter, uint64_t unsentBytes, bool userCorked) {
    return pendingCdcsAfter == 0 && unsentBytes > 0 && !userCorked;
}

bool deferToOwner(PushOrigin origin, bool deferEnabled, uint32_t owners) {
    return deferEnabled && owners > 0 && deferrable(origin);
}

}  // namespace smcr::core
