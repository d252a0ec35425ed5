#pragma once

namespace smcr {

// The engine's version (same as the project's); the CLI and agent print it.
const char* versionString();

}  // namespace smcr
