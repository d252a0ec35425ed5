#include "smclab/report/letter_lines.h"

#include <algorithm>
#include <optional>

namespace smclab::report {

namespace {

std::optional<double> cellValue(const ComparisonTable& table, qsizetype row, qsizetype column) {
    if (row >= table.rows.size() || column >= table.rows[row].cells.size()) return std::nullopt;
    return table.rows[row].cells[column].value;
}

QString fixed(std::optional<double> value, int decimals) {
    return value ? QString::number(*value, 'f', decimals) : QStringLiteral("-");
}

// "Before" for one size, "Before (10 B)" when the table has several.
QString blockLabel(const ComparisonTable& table, qsizetype row, qsizetype column) {
    const QString label = table.columns.value(column);
    if (table.rows.size() < 2) return label;
    return QStringLiteral("%1 (%2 B)").arg(label).arg(table.rows[row].msgSize);
}

}  // namespace

QString wrkBinaryUnits(double value) {
    static const char* const kUnits[] = {"", "K", "M", "G", "T", "P"};
    size_t unit = 0;
    while (value >= 1024.0 && unit + 1 < std::size(kUnits)) {
        value /= 1024.0;
        ++unit;
    }
    return QString::number(value, 'f', 2) + QLatin1String(kUnits[unit]);
}

QString formatRedisQuietLines(const QList<RedisTestTables>& tests) {
    if (tests.isEmpty()) return {};
    const ComparisonTable& first = tests.front().rps;
    QString out = QStringLiteral("==== redis-benchmark ====\n");
    for (qsizetype row = 0; row < first.rows.size(); ++row) {
        for (qsizetype column = 0; column < first.columns.size(); ++column) {
            if (row + column > 0) out += QLatin1Char('\n');
            out += blockLabel(first, row, column) + QStringLiteral(":\n");
            for (const RedisTestTables& test : tests) {
                out += QStringLiteral("%1: %2 requests per second, p50=%3 msec\n")
                           .arg(test.test, fixed(cellValue(test.rps, row, column), 2),
                                fixed(cellValue(test.p50Ms, row, column), 3));
            }
        }
    }
    return out;
}

QString formatQpsRows(const ComparisonTable& rps) {
    QString out;
    for (qsizetype row = 0; row < rps.rows.size(); ++row) {
        QStringList labels{QStringLiteral("Items")};
        QStringList values{QStringLiteral("QPS")};
        for (qsizetype column = 0; column < rps.columns.size(); ++column) {
            labels << rps.columns[column];
            values << fixed(cellValue(rps, row, column), 2);
        }
        qsizetype labelWidth = 0;
        qsizetype valueWidth = 0;
        for (const QString& l : labels) labelWidth = std::max(labelWidth, l.size());
        for (const QString& v : values) valueWidth = std::max(valueWidth, v.size());
        if (!out.isEmpty()) out += QLatin1Char('\n');
        out += rps.rows.size() < 2 ? QStringLiteral("==== QPS ====\n")
                                   : QStringLiteral("==== QPS (%1 B) ====\n").arg(rps.rows[row].msgSize);
        for (qsizetype i = 0; i < labels.size(); ++i) {
            out +=
                labels[i].leftJustified(labelWidth + 2) + values[i].rightJustified(valueWidth + 2) + QLatin1Char('\n');
        }
    }
    return out;
}

QString formatWrkRateLines(const ComparisonTable& rps, const ComparisonTable& transferBytesPerSec) {
    if (rps.rows.isEmpty()) return {};
    QString out = QStringLiteral("==== wrk ====\n");
    for (qsizetype row = 0; row < rps.rows.size(); ++row) {
        for (qsizetype column = 0; column < rps.columns.size(); ++column) {
            if (row + column > 0) out += QLatin1Char('\n');
            out += blockLabel(rps, row, column) + QStringLiteral(":\n");
            out += QStringLiteral("Requests/sec: %1\n").arg(fixed(cellValue(rps, row, column), 2).rightJustified(9));
            const std::optional<double> transfer = cellValue(transferBytesPerSec, row, column);
            out += QStringLiteral("Transfer/sec: %1B\n")
                       .arg((transfer ? wrkBinaryUnits(*transfer) : QStringLiteral("-")).rightJustified(10));
        }
    }
    return out;
}

}  // namespace smclab::report
