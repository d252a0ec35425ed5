// Registry entries of the backends (each defined in its own folder).
#pragma once

#include <smcr/fabric.h>

namespace smcr::fabric {

const BackendEntry& simBackendEntry();
const BackendEntry& verbsBackendEntry();

}  // namespace smcr::fabric
