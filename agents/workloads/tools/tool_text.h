// Small text helpers shared by the tool output parsers: lines, trimming,
// numbers with thousands separators, strictly (the whole token or nothing).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace smclab::workloads::tooltext {

std::vector<std::string_view> lines(std::string_view text);
std::string_view trim(std::string_view text);
// "1,234.5" -> 1234.5; "-nan"/"nan" -> nullopt; trailing junk -> nullopt.
std::optional<double> number(std::string_view token);
// Whitespace-separated tokens.
std::vector<std::string_view> tokens(std::string_view text);
bool startsWith(std::string_view text, std::string_view prefix);
bool endsWith(std::string_view text, std::string_view suffix);
// "line 3: ..." for error messages; quotes at most 80 characters of the line.
std::string quoteLine(size_t lineIndex, std::string_view line);

}  // namespace smclab::workloads::tooltext
