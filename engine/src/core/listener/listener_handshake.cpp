// The listener's handshake worker: one thread that runs the server CLC
// handshakes in arrival order (the kernel's smc_hs_wq work items; libsmcr
// serialises server link-group creation anyway, like smc_server_lgr_pending).
// With lab.fast_fallback off it also decides SMC or TCP for each connection,
// waiting up to lab.clc_detect_ms for the first bytes, so a plain TCP client
// queues behind every handshake and detection in front of it: the cost the
// fast path removes.
#include <smcr/wire/decline_reasons.h>

#include "core/listener/listener_impl.h"
#include "core/listener/smc_detect.h"
#include "core/shell/socket_impl.h"

namespace smcr::core {

void ListenerImpl::handshakeLoop() {
    for (;;) {
        HsJob job;
        {
            std::unique_lock lock(m_mutex);
            m_hsRunning = false;
            m_hsCv.wait(lock, [&] { return m_closed.load() || !m_hsJobs.empty(); });
            if (m_closed.load()) return;  // close() closes the jobs still queued
            job = std::move(m_hsJobs.front());
            m_hsJobs.pop_front();
            m_hsRunning = true;
        }
        if (job.detect) {
            const auto detectMs = static_cast<int>(m_engine->settings().get(SettingId::clcDetectMs));
            if (detectSmcClient(job.fd, detectMs) != DetectResult::smc) {
                Pending p;
                p.fd = job.fd;
                p.peer = std::move(job.peer);
                queuePlain(p, false);
                continue;
            }
        }
        queueReady(AcceptSource::handshake, m_engine->serverHandshake(job.fd, job.peer, std::move(job.prefix)));
    }
}

void ListenerImpl::queueHandshake(HsJob job) {
    uint64_t depth = 0;
    {
        std::lock_guard lock(m_mutex);
        m_hsJobs.push_back(std::move(job));
        depth = m_hsJobs.size() + (m_hsRunning ? 1 : 0);
        if (depth <= m_hsDepthMax)
            depth = 0;  // nothing new to report
        else
            m_hsDepthMax = depth;
    }
    m_hsCv.notify_one();
    if (depth == 0) return;
    std::lock_guard lock(m_engine->mutex());
    EngineStats& stats = m_engine->statsLocked();
    stats.hsQueueDepthMax = std::max(stats.hsQueueDepthMax, depth);
}

bool ListenerImpl::hsCongested() {
    std::lock_guard lock(m_mutex);
    return m_hsRunning && m_hsJobs.size() >= kHsCongestedWaiting;
}

}  // namespace smcr::core
