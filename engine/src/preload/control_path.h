// Where a preloaded process's control endpoint lives, for the process and
// for `smclab stat` / `smclab set`: <sim dir>/preload/ctl/<pid>.sock, a unix
// stream socket. One request line per connection:
//   "stat\n"              -> the counters JSON (the --stats file's content), then EOF
//   "set NAME VALUE\n"    -> "ok NAME=VALUE\n" or "error MESSAGE\n"
#pragma once

#include <string>
#include <vector>

#include <sys/types.h>

#include <smcr/result.h>

namespace smcr::preload {

std::string controlDir(const std::string& simDir = {});
std::string controlPath(pid_t pid, const std::string& simDir = {});

// Client side (smclab): one request, its whole answer. timeoutMs bounds it.
Result<std::string> controlRequest(pid_t pid, const std::string& request, int timeoutMs = 3000);
// The pids that have an endpoint (stale ones included; a request says).
std::vector<pid_t> controlPids();

}  // namespace smcr::preload
