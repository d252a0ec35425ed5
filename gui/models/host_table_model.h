// The hosts page's table: every agent the user added, its connection state
// and the capabilities from its hello (CPU, kernel, fabrics, transports,
// RDMA devices, kernel SMC).
#pragma once

#include <QAbstractTableModel>
#include <QList>

#include "protocol/hello.h"

namespace smclab::gui {

enum class HostState { invalid = 0, disconnected, connecting, connected, failed };

struct HostRow {
    QString address;  // "HOST:PORT"
    bool tls = false;
    QString tokenFile;
    QString token;       // in memory only
    bool local = false;  // started by "Local lab"
    HostState state = HostState::disconnected;
    QString error;
    protocol::Hello hello;
};

class HostTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        addressColumn = 0,
        stateColumn,
        roleColumn,
        agentColumn,
        hostColumn,
        cpuColumn,
        kernelColumn,
        fabricsColumn,
        transportsColumn,
        rdmaColumn,
        ksmcColumn,
        columnCount_
    };

    explicit HostTableModel(QObject* parent = nullptr);

    int addHost(const HostRow& row);  // returns its row; an existing address is updated
    void removeHost(int row);
    const HostRow& host(int row) const { return m_rows[row]; }
    HostRow& host(int row) { return m_rows[row]; }
    int findAddress(const QString& address) const;
    const QList<HostRow>& hosts() const { return m_rows; }
    void setState(int row, HostState state, const QString& error = QString());
    void setHello(int row, const protocol::Hello& hello);
    // Campaigns pair the connected agents in list order: server, client,
    // server, client...; a lone last agent plays both roles.
    QString roleText(int row) const;
    // The row paired with `row` (-1 when it has none or is not connected).
    int partnerRow(int row) const;
    // Exchanges two rows (their order decides the roles).
    void swapRows(int a, int b);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QList<HostRow> m_rows;
};

QString hostStateName(HostState state);

}  // namespace smclab::gui
