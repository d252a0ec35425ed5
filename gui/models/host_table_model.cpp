#include "models/host_table_model.h"

#include <QBrush>
#include <QColor>

namespace smclab::gui {

namespace {

QString availabilityText(const QList<protocol::Availability>& items) {
    QStringList names;
    for (const protocol::Availability& a : items) {
        if (a.available) names.append(a.name);
    }
    return names.join(QStringLiteral(", "));
}

QString availabilityTip(const QList<protocol::Availability>& items) {
    QStringList lines;
    for (const protocol::Availability& a : items) {
        lines.append(a.available ? QObject::tr("%1: available").arg(a.name)
                                 : QObject::tr("%1: unavailable (%2)").arg(a.name, a.reason));
    }
    return lines.join(QLatin1Char('\n'));
}

}  // namespace

QString hostStateName(HostState state) {
    switch (state) {
        case HostState::disconnected:
            return QObject::tr("disconnected");
        case HostState::connecting:
            return QObject::tr("connecting");
        case HostState::connected:
            return QObject::tr("connected");
        case HostState::failed:
            return QObject::tr("failed");
        case HostState::invalid:
            break;
    }
    return QStringLiteral("?");
}

HostTableModel::HostTableModel(QObject* parent) : QAbstractTableModel(parent) {}

int HostTableModel::findAddress(const QString& address) const {
    for (int i = 0; i < m_rows.size(); ++i) {
        if (m_rows[i].address == address) return i;
    }
    return -1;
}

int HostTableModel::addHost(const HostRow& row) {
    const int existing = findAddress(row.address);
    if (existing >= 0) {
        m_rows[existing] = row;
        emit dataChanged(index(existing, 0), index(existing, columnCount_ - 1));
        return existing;
    }
    const int at = static_cast<int>(m_rows.size());
    beginInsertRows({}, at, at);
    m_rows.append(row);
    endInsertRows();
    return at;
}

void HostTableModel::removeHost(int row) {
    if (row < 0 || row >= m_rows.size()) return;
    beginRemoveRows({}, row, row);
    m_rows.removeAt(row);
    endRemoveRows();
}

void HostTableModel::setState(int row, HostState state, const QString& error) {
    if (row < 0 || row >= m_rows.size()) return;
    m_rows[row].state = state;
    m_rows[row].error = error;
    // Roles follow the connected rows: one row's state moves the others'.
    emit dataChanged(index(0, 0), index(rowCount() - 1, columnCount_ - 1));
}

void HostTableModel::setHello(int row, const protocol::Hello& hello) {
    if (row < 0 || row >= m_rows.size()) return;
    m_rows[row].hello = hello;
    emit dataChanged(index(row, 0), index(row, columnCount_ - 1));
}

namespace {
// Index of `row` among the connected rows, -1 if it is not connected.
int connectedIndex(const QList<HostRow>& rows, int row) {
    int index = 0;
    for (int i = 0; i < rows.size(); ++i) {
        if (rows[i].state != HostState::connected) continue;
        if (i == row) return index;
        ++index;
    }
    return -1;
}
}  // namespace

QString HostTableModel::roleText(int row) const {
    const int index = connectedIndex(m_rows, row);
    if (index < 0) return {};
    const int pair = index / 2 + 1;
    if (index % 2 == 0)
        return partnerRow(row) < 0 ? tr("server + client (pair %1)").arg(pair) : tr("server (pair %1)").arg(pair);
    return tr("client (pair %1)").arg(pair);
}

int HostTableModel::partnerRow(int row) const {
    const int index = connectedIndex(m_rows, row);
    if (index < 0) return -1;
    const int wanted = index % 2 == 0 ? index + 1 : index - 1;
    for (int i = 0; i < m_rows.size(); ++i) {
        if (connectedIndex(m_rows, i) == wanted) return i;
    }
    return -1;
}

void HostTableModel::swapRows(int a, int b) {
    if (a < 0 || b < 0 || a >= m_rows.size() || b >= m_rows.size() || a == b) return;
    beginResetModel();
    m_rows.swapItemsAt(a, b);
    endResetModel();
}

int HostTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int HostTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : columnCount_;
}

QVariant HostTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= m_rows.size()) return {};
    const HostRow& row = m_rows[index.row()];
    const protocol::Capabilities& caps = row.hello.capabilities;
    const bool known = row.state == HostState::connected || !row.hello.agentVersion.isEmpty();
    if (role == Qt::ForegroundRole && index.column() == stateColumn) {
        switch (row.state) {
            case HostState::connected:
                return QBrush(QColor(0x1b, 0x7f, 0x3a));
            case HostState::failed:
                return QBrush(QColor(0xb0, 0x22, 0x22));
            default:
                return {};
        }
    }
    if (role == Qt::ToolTipRole) {
        switch (index.column()) {
            case stateColumn:
                return row.error.isEmpty() ? QVariant() : row.error;
            case fabricsColumn:
                return availabilityTip(caps.fabrics);
            case transportsColumn:
                return availabilityTip(caps.transports);
            case ksmcColumn:
                return caps.ksmc.reason.isEmpty() ? QVariant() : caps.ksmc.reason;
            default:
                return {};
        }
    }
    if (role != Qt::DisplayRole) return {};
    switch (index.column()) {
        case addressColumn:
            return QStringLiteral("%1%2%3").arg(row.tls ? QStringLiteral("wss://") : QString(), row.address,
                                                row.local ? tr(" (local)") : QString());
        case stateColumn:
            return row.state == HostState::failed && !row.error.isEmpty()
                       ? tr("failed: %1").arg(row.error.size() > 40 ? row.error.left(39) + QChar(0x2026) : row.error)
                       : hostStateName(row.state);
        case roleColumn:
            return roleText(index.row());
        case agentColumn:
            return known ? tr("%1 (protocol %2)").arg(row.hello.agentVersion, row.hello.protocolVersion) : QVariant();
        case hostColumn:
            return known ? caps.host.hostname : QVariant();
        case cpuColumn:
            return known ? tr("%1 x %2").arg(caps.host.cpuCount).arg(caps.host.cpuModel) : QVariant();
        case kernelColumn:
            return known ? QStringLiteral("%1 %2").arg(caps.host.kernelName, caps.host.kernelRelease) : QVariant();
        case fabricsColumn:
            return known ? availabilityText(caps.fabrics) : QVariant();
        case transportsColumn:
            return known ? availabilityText(caps.transports) : QVariant();
        case rdmaColumn: {
            if (!known) return {};
            QStringList names;
            for (const protocol::RdmaDevice& d : caps.rdmaDevices) names.append(d.name);
            return names.isEmpty() ? tr("none") : names.join(QStringLiteral(", "));
        }
        case ksmcColumn:
            return known ? (caps.ksmc.available ? tr("yes") : tr("no")) : QVariant();
        default:
            return {};
    }
}

QVariant HostTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    static const char* const kNames[] = {"Agent address", "State",  "Role in campaigns", "Agent",      "Host",
                                         "CPU",           "Kernel", "Fabrics",           "Transports", "RDMA devices",
                                         "Kernel SMC"};
    return section >= 0 && section < columnCount_ ? tr(kNames[section]) : QVariant();
}

}  // namespace smclab::gui
