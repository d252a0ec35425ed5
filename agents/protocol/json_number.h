// Integers from JSON numbers for the lenient readers. JSON numbers are
// doubles, and casting one outside the integer's range (or NaN) is undefined
// behaviour: these map such values to 0 (fuzz_json found 3.6e+80 in a
// hello's limits).
#pragma once

#include <QJsonValue>

namespace smclab::protocol {

inline qint64 toInt64(const QJsonValue& value) {
    const double number = value.toDouble();
    return number > -9.2e18 && number < 9.2e18 ? static_cast<qint64>(number) : 0;
}

inline quint64 toUInt64(const QJsonValue& value) {
    const double number = value.toDouble();
    return number >= 0 && number < 1.8e19 ? static_cast<quint64>(number) : 0;
}

}  // namespace smclab::protocol
