// Small builders shared by the describe_*.cpp files.
#pragma once

#include <string>
#include <vector>

#include <smcr/wire/describe.h>

namespace smcr::wire {

class FieldList {
public:
    void add(std::string name, std::string value) { m_fields.push_back({std::move(name), std::move(value), m_depth}); }
    void add(std::string name, uint64_t value) { add(std::move(name), std::to_string(value)); }
    void flag(std::string name, bool value) { add(std::move(name), value ? "yes" : "no"); }
    void group(std::string name) { add(std::move(name), ""); }
    void enter() { ++m_depth; }
    void leave() { --m_depth; }
    std::vector<Field> take() { return std::move(m_fields); }

private:
    std::vector<Field> m_fields;
    int m_depth = 0;
};

// Blank/NUL padded text (EID, hostname) shown quoted when printable, else as hex.
std::string formatPaddedText(const uint8_t* data, size_t size);
std::string formatIpv4(uint32_t address);
std::string formatIpv6(const uint8_t* address16);

}  // namespace smcr::wire
