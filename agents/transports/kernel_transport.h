// A Transport over kernel sockets of one SocketKind: `tcp` and `ksmc`.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "kernel_socket.h"
#include "sysctl_settings.h"

namespace smclab::transports {

class KernelTransport final : public Transport {
public:
    // `moreCounters`: counters the kernel keeps for this kind of socket
    // (ksmc: the SMC statistics since the transport was made), added to
    // the transport's own.
    KernelTransport(std::string name, SocketKind kind, SysctlSettings settings,
                    std::function<Counters()> moreCounters = {});

    std::string name() const override { return m_name; }
    Result<std::unique_ptr<Stream>> connect(const std::string& host, uint16_t port,
                                            const ConnectOptions& options) override;
    Result<std::unique_ptr<Listener>> listen(const std::string& addr, uint16_t port, int backlog) override;
    Result<std::unique_ptr<Poller>> createPoller() override { return EpollPoller::create(); }
    std::vector<SettingInfo> settings() const override { return m_settings.list(); }
    Status applySetting(const std::string& name, const std::string& value) override {
        return m_settings.apply(m_name, name, value);
    }
    Counters counters() const override;

private:
    std::string m_name;
    SocketKind m_kind;
    SysctlSettings m_settings;
    std::shared_ptr<KernelTransportStats> m_stats;
    std::function<Counters()> m_moreCounters;
};

}  // namespace smclab::transports
