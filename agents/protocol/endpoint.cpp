#include "protocol/endpoint.h"

namespace smclab::protocol {

QString Endpoint::toString() const {
    const QString host =
        address.protocol() == QAbstractSocket::IPv6Protocol ? '[' + address.toString() + ']' : address.toString();
    return host + ':' + QString::number(port);
}

std::optional<Endpoint> parseEndpoint(const QString& text, QString* why) {
    QString host;
    QString port;
    if (text.startsWith('[')) {
        const auto close = text.indexOf("]:");
        if (close < 0) {
            *why = "IPv6 endpoints are written [ADDR]:PORT";
            return std::nullopt;
        }
        host = text.mid(1, close - 1);
        port = text.mid(close + 2);
    } else {
        const auto colon = text.lastIndexOf(':');
        if (colon <= 0 || text.count(':') != 1) {
            *why = "expected ADDR:PORT";
            return std::nullopt;
        }
        host = text.left(colon);
        port = text.mid(colon + 1);
    }
    Endpoint endpoint;
    if (!endpoint.address.setAddress(host)) {
        *why = QString("'%1' is not an IP address (host names are not accepted)").arg(host);
        return std::nullopt;
    }
    bool ok = false;
    const uint number = port.toUInt(&ok);
    if (!ok || number > 65535) {
        *why = QString("'%1' is not a port number 0..65535").arg(port);
        return std::nullopt;
    }
    endpoint.port = static_cast<quint16>(number);
    return endpoint;
}

}  // namespace smclab::protocol
