// Which peers a client run may connect to: the --allow-peer CIDRs, plus
// loopback (127.0.0.0/8 and ::1), allowed by default so two agents on one
// host work without options (--no-loopback-peers takes it away). Keeps a controller from using the agent to
// send traffic to arbitrary hosts.
#pragma once

#include <QHostAddress>
#include <QList>
#include <QPair>
#include <QString>
#include <QStringList>

namespace smclab::daemon {

class PeerPolicy {
public:
    // Returns false (with *why) on a malformed CIDR. "10.0.0.2" alone means /32.
    bool addCidr(const QString& cidr, QString* why);
    bool isAllowed(const QHostAddress& address) const;
    void setLoopbackAllowed(bool allowed) { m_loopback = allowed; }
    bool loopbackAllowed() const { return m_loopback; }
    QStringList describe() const;

private:
    QList<QPair<QHostAddress, int>> m_subnets;
    bool m_loopback = true;
};

}  // namespace smclab::daemon
