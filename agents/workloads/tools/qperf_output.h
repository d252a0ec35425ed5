// Parser of qperf's client output (qperf 0.4.x, -v/-vu/-vt/-vv forms):
//
//   tcp_bw:
//       bw              =  1.73 GB/sec
//       msg_size        =    64 KiB (65,536)
//       send_cpus_used  =   142 % cpus
//   tcp_lat:
//       latency         =  19.1 us
//       loc_cpus_used   =    85 % cpus
//
// One block per test run (an -oo loop prints one block per value). Every
// figure comes back in one unit per kind, named with it: bw_MBps (10^6
// bytes/s, qperf's MB), latency_us, msg_rate (per second), msg_size and
// *_bytes (bytes), time_sec / timeout_sec / *_time_sec, *_cost_ms_per_GB,
// *_cpus_* (percent of one CPU), *_msgs (count). A unit qperf does not
// print, a line that is not "name = value unit", or a block without its
// headline (bw for *_bw, latency for *_lat) is an error naming the line:
// nothing is guessed.
#pragma once

#include <string_view>
#include <vector>

#include <smcr/result.h>

#include <QJsonObject>

namespace smclab::workloads {

struct QperfBlock {
    std::string test;     // "tcp_bw"
    QJsonObject figures;  // as above
};

smcr::Result<std::vector<QperfBlock>> parseQperfOutput(std::string_view text);

}  // namespace smclab::workloads
