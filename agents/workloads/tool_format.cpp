#include "tool_format.h"

#include <cmath>
#include <cstdio>

namespace smclab::workloads {

std::string commaGrouped(uint64_t value) {
    std::string digits = std::to_string(value);
    std::string out;
    const size_t n = digits.size();
    for (size_t i = 0; i < n; ++i) {
        out += digits[i];
        if ((n - i - 1) % 3 == 0 && i + 1 < n) out += ',';
    }
    return out;
}

std::string significant(double value, int digits) {
    if (!std::isfinite(value)) return "nan";
    if (std::fabs(value) >= std::pow(10.0, digits)) {
        const double rounded = std::round(std::fabs(value));
        return (value < 0 ? "-" : "") + commaGrouped(static_cast<uint64_t>(rounded));
    }
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*g", digits, value);
    return buf;
}

std::string binaryScaled(double bytes) {
    static const char* kUnits[] = {"B", "KB", "MB", "GB", "TB", "PB"};
    int unit = 0;
    while (bytes >= 1024.0 && unit < 5) {
        bytes /= 1024.0;
        ++unit;
    }
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.2f%s", bytes, kUnits[unit]);
    return buf;
}

std::string metricScaled(double value) {
    static const char* kUnits[] = {"", "k", "M", "G", "T"};
    int unit = 0;
    while (value >= 1000.0 && unit < 4) {
        value /= 1000.0;
        ++unit;
    }
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.2f%s", value, kUnits[unit]);
    return buf;
}

std::string wrkTime(double microseconds) {
    char buf[64];
    if (microseconds < 1000.0) {
        std::snprintf(buf, sizeof buf, "%.2fus", microseconds);
    } else if (microseconds < 1000000.0) {
        std::snprintf(buf, sizeof buf, "%.2fms", microseconds / 1000.0);
    } else if (microseconds < 60.0 * 1000000.0) {
        std::snprintf(buf, sizeof buf, "%.2fs", microseconds / 1000000.0);
    } else {
        std::snprintf(buf, sizeof buf, "%.2fm", microseconds / 60000000.0);
    }
    return buf;
}

}  // namespace smclab::workloads
