// Parser of iperf3's JSON report (iperf3 -J, 3.x): the client's "start",
// "intervals" and "end" objects. Into:
//   bw_MBps (received by the receiving side, 10^6 bytes/s, as qperf's),
//   sent_bits_per_sec, received_bits_per_sec, bytes (received), seconds,
//   retransmits, cpu_local_pct / cpu_remote_pct (iperf3's host_total and
//   remote_total), and with --bidir reverse_bw_MBps; plus `version`,
//   `protocol`, `streams`, `reverse`, and the intervals (t_sec, seconds,
//   bytes, bits_per_second) for samples.
// iperf3's own "error" member, a report without "end" sums (cut off) or text
// that is not JSON is an error that says which.
#pragma once

#include <string_view>
#include <vector>

#include <smcr/result.h>

#include <QJsonObject>

namespace smclab::workloads {

struct Iperf3Interval {
    double endSec = 0;
    double seconds = 0;
    double bytes = 0;
    double bitsPerSecond = 0;
};

struct Iperf3Report {
    QJsonObject summary;
    std::vector<Iperf3Interval> intervals;
};

smcr::Result<Iperf3Report> parseIperf3Json(std::string_view text);

}  // namespace smclab::workloads
