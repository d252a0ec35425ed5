// "ADDR:PORT" endpoints as the protocol writes them: an IPv4 literal, or an
// IPv6 literal in brackets ("[::1]:5201"). Host names are refused on purpose:
// the agent checks peers against --allow-peer CIDRs and must not resolve
// names a controller chose.
#pragma once

#include <optional>

#include <QHostAddress>
#include <QString>

namespace smclab::protocol {

struct Endpoint {
    QHostAddress address;
    quint16 port = 0;

    QString toString() const;
};

// Returns nullopt and sets *why when the text is not ADDR:PORT.
std::optional<Endpoint> parseEndpoint(const QString& text, QString* why);

}  // namespace smclab::protocol
