#include "kv_store.h"

#include "resp.h"

namespace smclab::workloads {

void KvStore::set(std::string_view key, std::string_view value) {
    Shard& shard = shardOf(key);
    std::lock_guard lock(shard.mutex);
    auto it = shard.map.find(key);
    if (it != shard.map.end()) {
        it->second.assign(value);
    } else {
        shard.map.emplace(std::string(key), std::string(value));
    }
}

void KvStore::appendGetReply(std::string_view key, std::string& out) {
    Shard& shard = shardOf(key);
    std::lock_guard lock(shard.mutex);
    auto it = shard.map.find(key);
    if (it == shard.map.end()) {
        resp::appendNullBulk(out);
    } else {
        resp::appendBulk(out, it->second);
    }
}

bool KvStore::erase(std::string_view key) {
    Shard& shard = shardOf(key);
    std::lock_guard lock(shard.mutex);
    auto it = shard.map.find(key);
    if (it == shard.map.end()) return false;
    shard.map.erase(it);
    return true;
}

bool KvStore::contains(std::string_view key) {
    Shard& shard = shardOf(key);
    std::lock_guard lock(shard.mutex);
    return shard.map.find(key) != shard.map.end();
}

size_t KvStore::size() {
    size_t n = 0;
    for (Shard& shard : m_shards) {
        std::lock_guard lock(shard.mutex);
        n += shard.map.size();
    }
    return n;
}

void KvStore::clear() {
    for (Shard& shard : m_shards) {
        std::lock_guard lock(shard.mutex);
        shard.map.clear();
    }
}

}  // namespace smclab::workloads
