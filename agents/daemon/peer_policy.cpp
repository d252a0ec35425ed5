#include "peer_policy.h"

namespace smclab::daemon {

bool PeerPolicy::addCidr(const QString& cidr, QString* why) {
    QString text = cidr.trimmed();
    if (!text.contains('/')) {
        QHostAddress single;
        if (!single.setAddress(text)) {
            *why = QString("'%1' is not an address or CIDR").arg(cidr);
            return false;
        }
        text += single.protocol() == QAbstractSocket::IPv6Protocol ? "/128" : "/32";
    }
    const auto subnet = QHostAddress::parseSubnet(text);
    if (subnet.first.isNull() || subnet.second < 0) {
        *why = QString("'%1' is not a CIDR such as 10.0.0.0/24").arg(cidr);
        return false;
    }
    m_subnets.append(subnet);
    return true;
}

bool PeerPolicy::isAllowed(const QHostAddress& address) const {
    if (address.isLoopback()) return m_loopback;
    // An IPv4-mapped IPv6 address is judged as the IPv4 address it carries.
    bool isV4 = false;
    const quint32 v4 = address.toIPv4Address(&isV4);
    const QHostAddress plain = isV4 ? QHostAddress(v4) : address;
    if (plain.isLoopback()) return m_loopback;
    for (const auto& subnet : m_subnets) {
        if (plain.isInSubnet(subnet)) return true;
    }
    return false;
}

QStringList PeerPolicy::describe() const {
    QStringList list;
    if (m_loopback) list.append("loopback");
    for (const auto& subnet : m_subnets) list.append(subnet.first.toString() + '/' + QString::number(subnet.second));
    return list;
}

}  // namespace smclab::daemon
