// The built-in workloads, listed by registry.cpp.
#pragma once

#include "workload.h"

namespace smclab::workloads {

const Workload& tcpBwWorkload();
const Workload& tcpLatWorkload();
const Workload& httpWorkload();
const Workload& kvWorkload();

}  // namespace smclab::workloads
