#include "core/shell/lab_hooks.h"

#include <mutex>

namespace smcr::core {

Status injectLinkFault(EngineImpl& engine, EngineImpl::LinkSelect which, fabric::sim::Fault fault, uint64_t value) {
    std::lock_guard lock(engine.mutex());
    fabric::sim::SimControl* sim = fabric::sim::simControl(engine.device());
    if (sim == nullptr) return fail(Errc::notSupported, "fault injection needs the sim fabric");
    const std::vector<fabric::QueuePair*> qps = engine.linkQpsLocked(which);
    if (qps.empty()) return fail(Errc::notFound, "no such link");
    for (fabric::QueuePair* qp : qps) {
        if (Status s = sim->injectFault(*qp, fault, value); !s) return s;
    }
    sim->progress();
    engine.wakeSleepersLocked();
    return {};
}

}  // namespace smcr::core
