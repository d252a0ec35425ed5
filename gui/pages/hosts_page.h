// Hosts: the agents of the lab with their live connection state and the
// capabilities from their hello; "Local lab" starts two agents on this host
// through the CLI demo's launcher, on a wire shaped to the chosen link model.
// The hosts (not their typed tokens) are remembered across sessions.
#pragma once

#include <QHash>
#include <QWidget>

#include "data/agent_endpoint.h"

class QComboBox;
class QLabel;
class QLayout;
class QPushButton;
class QTableView;
class QPlainTextEdit;
class QTextBrowser;

namespace smclab {
class AgentClient;
}

namespace smclab::gui {

class LabContext;
class HostTableModel;
struct HostRow;
class LocalLab;
class DeployDialog;
class VmLabRunner;

class HostsPage : public QWidget {
    Q_OBJECT
public:
    explicit HostsPage(LabContext* lab, QWidget* parent = nullptr);
    ~HostsPage() override;

    // Adds (or updates) a host and connects to it.
    void addHost(const HostRow& row);
    void connectHost(int row);
    void disconnectHost(int row);
    void removeHost(int row);
    void startLocalLab();
    // The link model "Start local lab" shapes the wire to.
    QString localLinkModel() const;
    void setLocalLinkModel(const QString& model);
    // What the running local lab's TCP and SMC cross (empty when none runs).
    QString localWireText() const;
    void saveHosts() const;
    void restoreHosts();
    // "Deploy agent...": the lab library's SSH deploy in a dialog (dialogs/deploy_dialog.h).
    void deployAgent();
    // "Start VM lab" / "Stop VM lab": two QEMU lab hosts with the kernel's
    // SMC-R and rxe (`smclab lab vm up|down`, agents/lab/vm), in the lab file
    // the CLI shares; booting runs in the background with progress below.
    void startVmLab();
    void stopVmLab();
    // Adds the lab file's hosts (smclab lab deploy's) that the list lacks,
    // each with its token file; the ones given connect. Returns how many were added.
    int addLabFileHosts(const QString& labFile, const QStringList& only = {});

    QList<AgentEndpoint> connectedAgents() const;
    HostTableModel* model() const { return m_model; }
    QTableView* table() const { return m_table; }
    // The selected agent's capabilities as the form shows them (plain text).
    QString capabilitiesText() const;
    // The raw hello JSON behind the "Show JSON" button.
    void setJsonShown(bool shown);
    bool jsonShown() const;
    // Exchanges the selected agent with its pair partner: server becomes client.
    void swapSelectedRoles();
    AgentClient* client(const QString& address) const { return m_clients.value(address); }

signals:
    void agentsChanged();

private:
    // The constructor's parts: the button row, the details under the table,
    // then the connections (after the widgets exist).
    QLayout* makeButtonRow();
    QWidget* makeDetailsBox(QWidget* parent);
    void connectHostSignals();
    // "Add agent...": the dialog, then addHost().
    void askForHost();
    QString tokenFor(const HostRow& row, QString* error) const;
    void ensureVmLabRunner();
    void showDetails();
    void updateWidgets();

    LabContext* m_lab = nullptr;
    HostTableModel* m_model = nullptr;
    QHash<QString, AgentClient*> m_clients;  // by address
    LocalLab* m_localLab = nullptr;
    QTableView* m_table = nullptr;
    QPlainTextEdit* m_details = nullptr;
    QTextBrowser* m_form = nullptr;
    QPushButton* m_jsonButton = nullptr;
    QPushButton* m_swapButton = nullptr;
    QPushButton* m_connectButton = nullptr;
    QPushButton* m_disconnectButton = nullptr;
    QPushButton* m_removeButton = nullptr;
    QPushButton* m_localButton = nullptr;
    QPushButton* m_vmUpButton = nullptr;
    QPushButton* m_vmDownButton = nullptr;
    VmLabRunner* m_vmLab = nullptr;
    QStringList m_vmAddresses;  // the VM hosts' agents, as their rows name them
    QComboBox* m_linkBox = nullptr;
    QLabel* m_wireLabel = nullptr;
    QLabel* m_hint = nullptr;
};

}  // namespace smclab::gui
