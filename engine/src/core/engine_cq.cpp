// How a thread that is about to sleep (or was woken by the completion
// channel) drains the CQs and arms them: lab.cq_mode (seed 000 patch 6).
//
// arm_first, the pre-2022 order: the CQs are armed right away and then
// polled; missed-event reports are ignored. Completions that arrive while
// the batch is processed fire the channel although the same round polls
// them, so the next sleep ends at once: a wasted wake-up.
// drain_then_arm, NAPI-like: poll in batches until a batch comes back short
// (the CQ is drained), then arm with missed-event reporting; if completions
// slipped in before the arm, poll again instead of sleeping on them.
// Upstream reverted the patch in favour of the RDMA core's CQ pool API; the
// lab keeps both so the wake-up counts (smcr.cq_events) can be compared.
#include "engine_impl.h"

namespace smcr::core {

bool EngineImpl::serviceCqsLocked() {
    const auto mode = static_cast<CqMode>(m_settings.get(SettingId::cqMode));
    if (mode == CqMode::armFirst) {
        (void)armLocked();  // the answer is not looked at, as before 2022
        bool any = progressLocked();
        any = progressLocked() || any;
        return any;
    }
    bool any = false;
    for (;;) {
        any = progressLocked() || any;  // batches until a short one (engine_impl.cpp)
        if (armLocked()) return any;    // false: events were missed, poll again
        ++m_stats.cqMissedEvents;
    }
}

}  // namespace smcr::core
