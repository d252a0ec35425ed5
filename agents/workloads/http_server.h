// The http workload's server: static files, nginx-style ("sendfile on;
// tcp_nopush on;"): per response TCP_CORK on, writev(header), sendfile(body),
// TCP_CORK off, so header and body leave in full segments. With the
// `sendfile` parameter off (nginx "sendfile off;") the body is read into a
// user buffer and written instead, the copy the sendfile-cork preset
// compares against.
#pragma once

#include <string>

#include "workload.h"

namespace smclab::workloads {

// The body served at /4k.html (or /<size> page) when no root is given:
// deterministic HTML of exactly `bytes` bytes, so clients can check it.
std::string generatedPage(size_t bytes);
inline constexpr const char* kGeneratedPath = "/4k.html";
inline constexpr const char* kDefaultHttpPath = kGeneratedPath;

ParamSchema httpServerSchema();
Result<RunResult> runHttpServer(const RunContext& ctx);

}  // namespace smclab::workloads
