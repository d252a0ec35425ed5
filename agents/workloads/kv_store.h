// The kv server's store: a hash map split into shards, each behind its own
// mutex, so I/O threads rarely contend. Lookups take string_views (no
// temporary strings on the GET path).
#pragma once

#include <array>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

namespace smclab::workloads {

class KvStore {
public:
    void set(std::string_view key, std::string_view value);
    // Appends the RESP reply for GET key (bulk or null) to `out`.
    void appendGetReply(std::string_view key, std::string& out);
    bool erase(std::string_view key);
    bool contains(std::string_view key);
    size_t size();
    void clear();

private:
    struct Hash {
        using is_transparent = void;
        size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
    };
    struct Shard {
        std::mutex mutex;
        std::unordered_map<std::string, std::string, Hash, std::equal_to<>> map;
    };
    static constexpr size_t kShards = 64;
    Shard& shardOf(std::string_view key) { return m_shards[Hash{}(key) % kShards]; }
    std::array<Shard, kShards> m_shards;
};

}  // namespace smclab::workloads
