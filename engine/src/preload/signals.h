// The program's signal handlers, seen by the preload: sigaction() installs
// a trampoline that counts each delivery whose handler lacks SA_RESTART,
// then runs the program's handler. A blocking SMC call waits inside libsmcr
// (its fast wait: spin, then sleep on the completion channel) in short
// slices and returns EINTR when such a signal came meanwhile, as the kernel
// would (qperf ends its tests with SIGALRM and no SA_RESTART). The program
// sees its own handlers in every sigaction() answer.
#pragma once

#include <cstdint>

#include <signal.h>

namespace smcr::preload {

int interposedSigaction(int signo, const struct sigaction* act, struct sigaction* old);
// Deliveries so far of signals whose handler asked for no SA_RESTART.
uint64_t interruptingSignals();

}  // namespace smcr::preload
