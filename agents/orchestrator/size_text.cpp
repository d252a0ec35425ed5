#include "size_text.h"

#include <QStringList>

namespace smclab::orchestrator {

std::optional<uint64_t> parseSizeText(const QString& text) {
    const QString trimmed = text.trimmed();
    if (trimmed.isEmpty()) return std::nullopt;
    struct Suffix {
        const char* text;
        uint64_t factor;
        Qt::CaseSensitivity sensitivity;
    };
    // qperf's spellings: K/KiB = 1024, k/kB = 1000; longer suffixes first.
    static const Suffix kSuffixes[] = {
        {"kib", 1ull << 10, Qt::CaseInsensitive}, {"mib", 1ull << 20, Qt::CaseInsensitive},
        {"gib", 1ull << 30, Qt::CaseInsensitive}, {"kb", 1000ull, Qt::CaseInsensitive},
        {"mb", 1000000ull, Qt::CaseInsensitive},  {"gb", 1000000000ull, Qt::CaseInsensitive},
        {"K", 1ull << 10, Qt::CaseSensitive},     {"M", 1ull << 20, Qt::CaseSensitive},
        {"G", 1ull << 30, Qt::CaseSensitive},     {"k", 1000ull, Qt::CaseSensitive},
        {"m", 1000000ull, Qt::CaseSensitive},     {"g", 1000000000ull, Qt::CaseSensitive},
    };
    QString digits = trimmed;
    uint64_t factor = 1;
    for (const Suffix& suffix : kSuffixes) {
        const QString s = QLatin1String(suffix.text);
        if (trimmed.size() > s.size() && trimmed.endsWith(s, suffix.sensitivity)) {
            digits = trimmed.left(trimmed.size() - s.size());
            factor = suffix.factor;
            break;
        }
    }
    bool ok = false;
    const qulonglong value = digits.toULongLong(&ok);
    if (!ok || digits.startsWith(QLatin1Char('+'))) return std::nullopt;
    if (value > UINT64_MAX / factor) return std::nullopt;
    return static_cast<uint64_t>(value) * factor;
}

std::optional<std::vector<uint64_t>> parseSizeLoopText(const QString& text, QString* error) {
    QStringList parts = text.split(QLatin1Char(':'));
    if (parts.size() == 4) parts.removeFirst();  // the variable name (msg_size)
    auto bad = [&](const QString& why) -> std::optional<std::vector<uint64_t>> {
        if (error) *error = QStringLiteral("bad size loop '%1': %2").arg(text, why);
        return std::nullopt;
    };
    if (parts.size() != 3) return bad(QStringLiteral("expected Var:Init:Last:Incr"));
    QString increment = parts[2];
    const bool multiply = increment.startsWith(QLatin1Char('*'));
    if (multiply) increment.remove(0, 1);
    const auto first = parseSizeText(parts[0]);
    const auto last = parseSizeText(parts[1]);
    const auto step = parseSizeText(increment);
    if (!first || !last || !step) return bad(QStringLiteral("Init, Last and Incr must be sizes"));
    if (*first > *last) return bad(QStringLiteral("Init is larger than Last"));
    if (multiply && (*step < 2 || *first == 0)) return bad(QStringLiteral("a '*' loop needs Init >= 1 and Incr >= 2"));
    if (!multiply && *step == 0) return bad(QStringLiteral("Incr must be at least 1"));
    std::vector<uint64_t> values;
    for (uint64_t v = *first; v <= *last;) {
        values.push_back(v);
        if (values.size() > 10000) return bad(QStringLiteral("more than 10000 sizes"));
        const uint64_t next = multiply ? v * *step : v + *step;
        if (next <= v) break;  // overflow
        v = next;
    }
    return values;
}

std::optional<std::vector<uint64_t>> parseSizeListText(const QString& text, QString* error) {
    if (text.contains(QLatin1Char(':'))) return parseSizeLoopText(text, error);
    std::vector<uint64_t> values;
    for (const QString& part : text.split(QLatin1Char(','))) {
        const auto size = parseSizeText(part);
        if (!size) {
            if (error) *error = QStringLiteral("bad size '%1' (use e.g. 64, 4K or a loop 1:64K:*2)").arg(part);
            return std::nullopt;
        }
        values.push_back(*size);
    }
    return values;
}

std::optional<int64_t> parseDurationText(const QString& text) {
    QString t = text.trimmed();
    double unitMs = 1000.0;
    if (t.endsWith(QLatin1String("ms"))) {
        unitMs = 1.0;
        t.chop(2);
    } else if (t.endsWith(QLatin1Char('s'))) {
        t.chop(1);
    } else if (t.endsWith(QLatin1Char('m'))) {
        unitMs = 60000.0;
        t.chop(1);
    } else if (t.endsWith(QLatin1Char('h'))) {
        unitMs = 3600000.0;
        t.chop(1);
    }
    bool ok = false;
    const double value = t.toDouble(&ok);
    if (!ok || value < 0 || t.isEmpty() || value * unitMs > 1e12) return std::nullopt;
    return static_cast<int64_t>(value * unitMs + 0.5);
}

}  // namespace smclab::orchestrator
