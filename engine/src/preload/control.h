// This process's control endpoint (control_path.h), served by a thread
// started on the first TCP socket, listener or engine of the process (so
// programs that never touch TCP get no thread), again in a forked child.
#pragma once

namespace smcr::preload {

void ensureControl();
// At exit: the endpoint's file goes away with the process.
void removeControl();

}  // namespace smcr::preload
