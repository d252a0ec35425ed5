// How a thread that is about to sleep (or was woken by the completion
// channel) drains the CQs and arms them: lab.cq_mode (seed 000 patch 6).
//
// arm_first, the pre-2022 order: in its first round the tasklet re-armed
// the CQ at every poll and ignored missed-event reports, then polled a second
// round. Every completion that arrives while a batch is processed fires the
// channel again (one interrupt each under load), although the same rounds
// poll it: wake-ups that find nothing new.
// drain_then_arm, NAPI-like: poll in batches until a batch comes back short
// (the CQ is drained), then arm with missed-event reporting; if completions
// slipped in before the arm, poll again instead of sleeping on them.
// Upstream reverted the patch in favour of the RDMA core's CQ pool API; the
// lab keeps both so the wake-up counts (smcr.cq_events) can be compared.
#include "core/shell/engine_impl.h"

namespace smcr::core {

bool EngineImpl::serviceCqsLocked(bool armSend) {
    const auto mode = static_cast<CqMode>(m_settings.get(SettingId::cqMode));
    if (mode == CqMode::armFirst) {
        // First round: the CQs are re-armed at every poll (the answer is not
        // looked at) for as long as polls find completions; then one more
        // round without arming.
        bool any = false;
        for (;;) {
            (void)armLocked(armSend);
            if (!progressLocked()) break;
            any = true;
        }
        return progressLocked() || any;
    }
    bool any = false;
    for (;;) {
        any = progressLocked() || any;       // batches until a short one (engine_impl.cpp)
        if (armLocked(armSend)) return any;  // false: events were missed, poll again
        ++m_stats.cqMissedEvents;
    }
}

}  // namespace smcr::core
