#include "datapath_columns.h"

#include <QJsonValue>

#include "orchestrator/datapath_columns.h"

namespace smclab::cli {

namespace {

std::string valueText(const QJsonValue& v) {
    if (v.isDouble()) return std::to_string(static_cast<long long>(v.toDouble()));
    return v.toString().toStdString();
}

// The bench's view of the one definition (orchestrator/datapath_columns.h).
DatapathColumn fromDefinition(const orchestrator::DatapathColumn& c) {
    DatapathColumn out;
    out.key = c.key.toStdString();
    out.label = c.label.toStdString();
    out.transport = c.transport.toStdString();
    out.summary = c.summary.toStdString();
    for (auto it = c.settings.begin(); it != c.settings.end(); ++it) {
        out.settings.emplace_back(it.key().toStdString(), valueText(it.value()));
    }
    return out;
}

std::vector<std::string> keys(const QStringList& list) {
    std::vector<std::string> out;
    for (const QString& k : list) out.push_back(k.toStdString());
    return out;
}

}  // namespace

const std::vector<DatapathColumn>& datapathColumns() {
    static const std::vector<DatapathColumn> kColumns = [] {
        std::vector<DatapathColumn> out;
        for (const orchestrator::DatapathColumn& c : orchestrator::datapathColumns()) out.push_back(fromDefinition(c));
        return out;
    }();
    return kColumns;
}

std::vector<std::string> defaultDatapathColumnKeys() {
    return keys(orchestrator::defaultDatapathColumnKeys());
}

std::vector<std::string> isolationColumnKeys() {
    return keys(orchestrator::isolationColumnKeys());
}

std::optional<DatapathColumn> findDatapathColumn(const std::string& name) {
    auto c = orchestrator::findDatapathColumn(QString::fromStdString(name));
    if (!c) return std::nullopt;
    return fromDefinition(*c);
}

}  // namespace smclab::cli
