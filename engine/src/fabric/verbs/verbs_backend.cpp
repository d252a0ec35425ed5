// The verbs backend's registry entry: device discovery, GID selection (RoCE
// v1/v2 from sysfs gid_attrs) and the device list.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "../backends.h"
#include "verbs_objects.h"

namespace smcr::fabric {

namespace {

std::string readLine(const std::string& path) {
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    return line;
}

GidType sysfsGidType(const std::string& dev, int port, int index) {
    const std::string type = readLine("/sys/class/infiniband/" + dev + "/ports/" + std::to_string(port) +
                                      "/gid_attrs/types/" + std::to_string(index));
    if (type == "RoCE v2") return GidType::roceV2;
    if (type == "IB/RoCE v1") return GidType::roceV1;
    return GidType::invalid;
}

Mac netdevMac(const std::string& netdev) {
    Mac mac{};
    const std::string text = readLine("/sys/class/net/" + netdev + "/address");
    unsigned v[6];
    if (std::sscanf(text.c_str(), "%x:%x:%x:%x:%x:%x", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5]) == 6) {
        for (int i = 0; i < 6; ++i) mac[i] = static_cast<uint8_t>(v[i]);
    }
    return mac;
}

bool isIpv4Mapped(const ibv_gid& gid) {
    for (int i = 0; i < 10; ++i) {
        if (gid.raw[i] != 0) return false;
    }
    return gid.raw[10] == 0xff && gid.raw[11] == 0xff;
}

// Fills ports and limits. gidIndex < 0: the first non-zero GID of the
// preferred type (SMC-Rv1 announces a RoCE v1 GID, SMC-Rv2 a RoCE v2 one).
Status describe(ibv_context* ctx, int gidIndex, GidType preferred, DeviceInfo* info) {
    ibv_device_attr attr{};
    if (ibv_query_device(ctx, &attr) != 0) return fail(verbs::errnoError("ibv_query_device", errno));
    info->name = ibv_get_device_name(ctx->device);
    info->backend = "verbs";
    info->limits.maxQp = static_cast<uint32_t>(attr.max_qp);
    info->limits.maxQpWr = static_cast<uint32_t>(attr.max_qp_wr);
    info->limits.maxSge = static_cast<uint32_t>(attr.max_sge);
    info->limits.maxInlineBytes = 0;  // known per QP after creation
    info->limits.maxCq = static_cast<uint32_t>(attr.max_cq);
    info->limits.maxCqe = static_cast<uint32_t>(attr.max_cqe);
    info->limits.maxMr = static_cast<uint32_t>(attr.max_mr);
    info->limits.maxMrSizeBytes = attr.max_mr_size;
    info->description = "fw " + std::string(attr.fw_ver);
    for (uint8_t port = 1; port <= attr.phys_port_cnt; ++port) {
        ibv_port_attr pattr{};
        if (ibv_query_port(ctx, port, &pattr) != 0) continue;
        PortInfo p;
        p.portNum = port;
        p.active = pattr.state == IBV_PORT_ACTIVE;
        p.activeMtu = static_cast<PathMtu>(pattr.active_mtu);
        const int tableLen = pattr.gid_tbl_len;
        int chosen = -1;
        // Two passes: the preferred GID type first, then any non-zero GID.
        for (int pass = 0; pass < 2 && chosen < 0; ++pass) {
            if (pass == 1) preferred = GidType::invalid;
            for (int i = 0; i < tableLen; ++i) {
                if (gidIndex >= 0 && i != gidIndex) continue;
                ibv_gid gid{};
                if (ibv_query_gid(ctx, port, i, &gid) != 0) continue;
                bool zero = true;
                for (uint8_t b : gid.raw) zero = zero && b == 0;
                if (zero) continue;
                const GidType type = sysfsGidType(info->name, port, i);
                if (gidIndex < 0 && preferred != GidType::invalid && type != preferred) continue;
                // SMC-Rv2 carries IPv4 only: its GID is an IPv4-mapped one
                // (::ffff:a.b.c.d; rxe lists the link-local fe80:: GID first).
                if (gidIndex < 0 && preferred == GidType::roceV2 && !isIpv4Mapped(gid)) continue;
                chosen = i;
                std::copy(std::begin(gid.raw), std::end(gid.raw), p.gid.begin());
                p.gidType = type;
                break;
            }
        }
        if (chosen >= 0) {
            p.gidIndex = static_cast<uint8_t>(chosen);
            p.netdev = readLine("/sys/class/infiniband/" + info->name + "/ports/" + std::to_string(port) +
                                "/gid_attrs/ndevs/" + std::to_string(chosen));
            if (!p.netdev.empty()) p.mac = netdevMac(p.netdev);
        }
        info->ports.push_back(p);
    }
    return {};
}

Status probeVerbs() {
    int count = 0;
    ibv_device** list = ibv_get_device_list(&count);
    if (list != nullptr) ibv_free_device_list(list);
    if (count <= 0) {
        return fail(Errc::notSupported, "no RDMA device on this host (libibverbs found " +
                                            std::to_string(count < 0 ? 0 : count) + " devices)");
    }
    return {};
}

Result<std::unique_ptr<Device>> openVerbs(const std::string& deviceName, const OpenOptions& options) {
    int gidIndex = -1;
    GidType preferred = GidType::roceV1;
    for (const auto& [key, value] : options) {
        if (key == "gid_index") {
            gidIndex = std::atoi(value.c_str());
        } else if (key == "gid_type") {
            if (value == "v1") {
                preferred = GidType::roceV1;
            } else if (value == "v2") {
                preferred = GidType::roceV2;
            } else {
                return fail(Errc::invalidArgument, "gid_type must be v1 or v2");
            }
        } else {
            return fail(Errc::invalidArgument, "verbs: unknown option '" + key + "' (known: gid_index, gid_type)");
        }
    }
    int count = 0;
    ibv_device** list = ibv_get_device_list(&count);
    if (list == nullptr || count <= 0) {
        if (list != nullptr) ibv_free_device_list(list);
        return fail(probeVerbs().error());
    }
    ibv_device* chosen = nullptr;
    for (int i = 0; i < count && chosen == nullptr; ++i) {
        if (deviceName.empty() || deviceName == ibv_get_device_name(list[i])) chosen = list[i];
    }
    if (chosen == nullptr) {
        ibv_free_device_list(list);
        return fail(Errc::notFound, "no RDMA device named '" + deviceName + "'");
    }
    auto context = std::make_shared<verbs::VerbsContext>();
    context->ctx = ibv_open_device(chosen);
    ibv_free_device_list(list);
    if (context->ctx == nullptr) return fail(verbs::errnoError("ibv_open_device", errno));
    if (auto st = describe(context->ctx, gidIndex, preferred, &context->info); !st) return fail(st.error());
    return std::unique_ptr<Device>(new verbs::VerbsDevice(context));
}

Result<std::vector<DeviceSummary>> listVerbs() {
    std::vector<DeviceSummary> out;
    int count = 0;
    ibv_device** list = ibv_get_device_list(&count);
    for (int i = 0; list != nullptr && i < count; ++i) {
        ibv_context* ctx = ibv_open_device(list[i]);
        if (ctx == nullptr) continue;
        DeviceSummary summary;
        summary.backend = "verbs";
        if (describe(ctx, -1, GidType::invalid, &summary.info)) out.push_back(std::move(summary));
        ibv_close_device(ctx);
    }
    if (list != nullptr) ibv_free_device_list(list);
    return out;
}

}  // namespace

const BackendEntry& verbsBackendEntry() {
    static const BackendEntry kEntry{"verbs", "rdma-core libibverbs (RoCE NICs, rxe, siw)", probeVerbs, openVerbs,
                                     listVerbs};
    return kEntry;
}

}  // namespace smcr::fabric
