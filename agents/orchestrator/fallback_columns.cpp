#include "fallback_columns.h"

namespace smclab::orchestrator {

namespace {

ColumnSpec smcrListener(const QString& label, const char* fastFallback) {
    return {label,
            QStringLiteral("smcr"),
            QStringLiteral("tcp"),
            {{QStringLiteral("lab.fast_fallback"), QLatin1String(fastFallback)}},
            {},
            {}};
}

}  // namespace

std::vector<ColumnSpec> fallbackColumns(const FallbackColumnLabels& labels) {
    return {
        {labels.tcp, QStringLiteral("tcp"), {}, {}, {}, {}},
        smcrListener(labels.fastFallbackOff, "off"),
        smcrListener(labels.fastFallbackOn, "on"),
    };
}

}  // namespace smclab::orchestrator
