#include "protocol/hello.h"

#include <QJsonArray>

#include "protocol/json_number.h"

namespace smclab::protocol {

namespace {

QJsonArray toArray(const QStringList& list) {
    return QJsonArray::fromStringList(list);
}

QStringList toStringList(const QJsonValue& value) {
    QStringList list;
    for (const QJsonValue& item : value.toArray()) list.append(item.toString());
    return list;
}

QJsonObject availabilityToJson(const Availability& item) {
    QJsonObject object{{"name", item.name}, {"available", item.available}};
    if (!item.reason.isEmpty()) object.insert("reason", item.reason);
    return object;
}

Availability availabilityFromJson(const QJsonObject& object) {
    return {object.value("name").toString(), object.value("available").toBool(), object.value("reason").toString()};
}

QJsonArray availabilityList(const QList<Availability>& items) {
    QJsonArray array;
    for (const Availability& item : items) array.append(availabilityToJson(item));
    return array;
}

QList<Availability> availabilityListFromJson(const QJsonValue& value) {
    QList<Availability> items;
    for (const QJsonValue& item : value.toArray()) items.append(availabilityFromJson(item.toObject()));
    return items;
}

}  // namespace

QJsonObject Capabilities::toJson() const {
    QJsonArray nicArray;
    for (const NicInfo& nic : nics) {
        nicArray.append(QJsonObject{{"name", nic.name},
                                    {"mac", nic.mac},
                                    {"mtu", nic.mtu},
                                    {"up", nic.up},
                                    {"addresses", toArray(nic.addresses)}});
    }
    QJsonArray rdmaArray;
    for (const RdmaDevice& device : rdmaDevices) {
        rdmaArray.append(
            QJsonObject{{"name", device.name}, {"ports", toArray(device.ports)}, {"net_device", device.netDevice}});
    }
    QJsonObject hostObject{{"hostname", host.hostname},
                           {"cpu_model", host.cpuModel},
                           {"cpu_count", host.cpuCount},
                           {"kernel", QJsonObject{{"sysname", host.kernelName},
                                                  {"release", host.kernelRelease},
                                                  {"version", host.kernelVersion},
                                                  {"machine", host.machine}}}};
    if (!host.virtualization.isEmpty()) hostObject.insert("virtualization", host.virtualization);
    QJsonObject out{
        {"host", hostObject},
        {"nics", nicArray},
        {"rdma_devices", rdmaArray},
        {"fabrics", availabilityList(fabrics)},
        {"transports", availabilityList(transports)},
        {"workloads", toArray(workloads)},
        {"ksmc", availabilityToJson(ksmc)},
        {"limits", QJsonObject{{"max_runs", limits.maxRuns},
                               {"max_duration_ms", limits.maxDurationMs},
                               {"min_sample_interval_ms", limits.minSampleIntervalMs}}},
    };
    if (kernelSmcr.reported) {
        QJsonObject state{{"ueids", toArray(kernelSmcr.ueids)},
                          {"pnet", toArray(kernelSmcr.pnet)},
                          {"fallbacks", toArray(kernelSmcr.fallbacks)}};
        if (!kernelSmcr.error.isEmpty()) state.insert("error", kernelSmcr.error);
        out.insert("kernel_smcr", state);
    }
    if (!synOption.name.isEmpty()) out.insert("syn_option", availabilityToJson(synOption));
    return out;
}

Capabilities Capabilities::fromJson(const QJsonObject& object) {
    Capabilities caps;
    const QJsonObject host = object.value("host").toObject();
    const QJsonObject kernel = host.value("kernel").toObject();
    caps.host = {host.value("hostname").toString(),  host.value("cpu_model").toString(),
                 host.value("cpu_count").toInt(),    kernel.value("sysname").toString(),
                 kernel.value("release").toString(), kernel.value("version").toString(),
                 kernel.value("machine").toString(), host.value("virtualization").toString()};
    for (const QJsonValue& value : object.value("nics").toArray()) {
        const QJsonObject nic = value.toObject();
        caps.nics.append({nic.value("name").toString(), nic.value("mac").toString(), nic.value("mtu").toInt(),
                          nic.value("up").toBool(), toStringList(nic.value("addresses"))});
    }
    for (const QJsonValue& value : object.value("rdma_devices").toArray()) {
        const QJsonObject device = value.toObject();
        caps.rdmaDevices.append({device.value("name").toString(), toStringList(device.value("ports")),
                                 device.value("net_device").toString()});
    }
    caps.fabrics = availabilityListFromJson(object.value("fabrics"));
    caps.transports = availabilityListFromJson(object.value("transports"));
    caps.workloads = toStringList(object.value("workloads"));
    caps.ksmc = availabilityFromJson(object.value("ksmc").toObject());
    if (const QJsonValue state = object.value("kernel_smcr"); state.isObject()) {
        const QJsonObject o = state.toObject();
        caps.kernelSmcr = {true, o.value("error").toString(), toStringList(o.value("ueids")),
                           toStringList(o.value("pnet")), toStringList(o.value("fallbacks"))};
    }
    if (const QJsonValue synOption = object.value("syn_option"); synOption.isObject())
        caps.synOption = availabilityFromJson(synOption.toObject());
    const QJsonObject limits = object.value("limits").toObject();
    caps.limits = {limits.value("max_runs").toInt(), toInt64(limits.value("max_duration_ms")),
                   toInt64(limits.value("min_sample_interval_ms"))};
    return caps;
}

bool Capabilities::transportAvailable(const QString& name) const {
    for (const Availability& item : transports) {
        if (item.name == name) return item.available;
    }
    return false;
}

QJsonObject Hello::toJson() const {
    return QJsonObject{{"type", "hello"},
                       {"protocol_version", protocolVersion},
                       {"agent_version", agentVersion},
                       {"session_id", sessionId},
                       {"capabilities", capabilities.toJson()}};
}

Hello Hello::fromJson(const QJsonObject& object) {
    return {object.value("protocol_version").toString(), object.value("agent_version").toString(),
            object.value("session_id").toString(), Capabilities::fromJson(object.value("capabilities").toObject())};
}

}  // namespace smclab::protocol
