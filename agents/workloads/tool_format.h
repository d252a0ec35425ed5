// Number formatting shared by the tool-style reports (qperf, wrk, redis-benchmark).
#pragma once

#include <cstdint>
#include <string>

namespace smclab::workloads {

// "1,234,567"
std::string commaGrouped(uint64_t value);
// qperf's -e digits: %.{digits}g without exponent; >= 10^digits prints the
// rounded integer comma-grouped ("1.9", "28.9", "198", "1,234").
std::string significant(double value, int digits = 3);
// wrk's binary-scaled sizes: "1.23MB", "512.00B" (1024 steps, 2 decimals).
std::string binaryScaled(double bytes);
// wrk's metric scaling: "12.34k" (1000 steps).
std::string metricScaled(double value);
// wrk's time: value in microseconds -> "123.45us", "1.23ms", "2.00s".
std::string wrkTime(double microseconds);

}  // namespace smclab::workloads
