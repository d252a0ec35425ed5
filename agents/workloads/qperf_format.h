// qperf's output block for a tcp_bw / tcp_lat client result:
//
//   tcp_bw:
//       bw        =  2.39 MB/sec
//       msg_size  =    64 KiB (65,536)
//       time      =     2 sec
//
// Four spaces, names padded to the longest, "  =  ", values right-aligned
// to the widest, a space and the unit. Values carry 3 significant digits and
// scale by 1000 (B/sec, KB/sec, MB/sec, GB/sec; MB = 10^6 bytes), unless
// oneUnit (qperf -uu) fixes MB/sec and us.
#pragma once

#include <string>

#include "workload.h"

namespace smclab::workloads {

struct QperfVerbosity {
    bool stats = false;               // -vs: msg_rate
    bool cpu = false;                 // -vt: send/recv cost and cpus_used
    int user = 0;                     // -vu: msg_size and time; -vvu (2): also timeout
    bool latencyPercentiles = false;  // -vl (ours): p50/p90/p99/p99.9/max from the histogram
    bool oneUnit = false;             // -uu
};

std::string formatQperfBlock(const RunResult& clientResult, const QperfVerbosity& verbosity);
// "64 KiB (65,536)", "1 bytes", "1 KB (1,000)"
std::string qperfSize(uint64_t bytes);

}  // namespace smclab::workloads
