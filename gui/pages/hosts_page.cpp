#include "pages/hosts_page.h"

#include <QApplication>
#include <QComboBox>
#include <QFile>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonDocument>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QTextBrowser>
#include <QVBoxLayout>

#include "app/app_settings.h"
#include "app/lab_context.h"
#include "data/capabilities_text.h"
#include "dialogs/add_host_dialog.h"
#include "dialogs/deploy_dialog.h"
#include "lab_file.h"
#include "models/host_table_model.h"
#include "orchestrator/campaign_json.h"
#include "protocol/agent_client.h"
#include "run/local_lab.h"
#include "run/vm_lab_runner.h"

namespace smclab::gui {

HostsPage::HostsPage(LabContext* lab, QWidget* parent) : QWidget(parent), m_lab(lab) {
    m_model = new HostTableModel(this);
    m_localLab = new LocalLab(this);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(makeButtonRow());
    auto* splitter = new QSplitter(Qt::Vertical, this);
    m_table = new QTableView(splitter);
    m_table->setModel(m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setStretchLastSection(true);
    QWidget* detailsBox = makeDetailsBox(splitter);
    splitter->addWidget(m_table);
    splitter->addWidget(detailsBox);
    splitter->setStretchFactor(0, 2);
    splitter->setStretchFactor(1, 3);
    layout->addWidget(splitter, 1);
    m_wireLabel = new QLabel(this);
    m_wireLabel->setWordWrap(true);
    m_wireLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_wireLabel);
    m_hint = new QLabel(this);
    m_hint->setWordWrap(true);
    layout->addWidget(m_hint);
    connectHostSignals();
    restoreHosts();
    updateWidgets();
}

QLayout* HostsPage::makeButtonRow() {
    auto* buttons = new QHBoxLayout;
    auto* addButton = new QPushButton(tr("&Add agent..."), this);
    m_connectButton = new QPushButton(tr("&Connect"), this);
    m_disconnectButton = new QPushButton(tr("&Disconnect"), this);
    m_removeButton = new QPushButton(tr("&Remove"), this);
    m_localButton = new QPushButton(tr("Start &local lab"), this);
    m_localButton->setToolTip(
        tr("Two smclab-agent processes on this host with a generated token (Ctrl+L): the "
           "server in a network namespace behind a veth shaped to the link model, where "
           "the host allows it, so TCP crosses the same modelled link as SMC"));
    m_linkBox = new QComboBox(this);
    m_linkBox->addItems(LocalLab::linkModels());
    m_linkBox->setCurrentText(LocalLab::defaultLinkModel());
    m_linkBox->setToolTip(
        tr("The sim link model of the local lab's wire: cx4lx-vf (two VFs of one ConnectX-4 Lx, "
           "the datapath series' setup), cx4-25g (two hosts over 25 GbE), ideal (unshaped: "
           "TCP over loopback, the sim without delay)"));
    auto* deployButton = new QPushButton(tr("D&eploy agent..."), this);
    deployButton->setToolTip(
        tr("Bring an agent up on a lab host over SSH (smclab lab deploy); the host is "
           "recorded in the lab file the CLI shares"));
    m_swapButton = new QPushButton(tr("S&wap server/client"), this);
    m_swapButton->setToolTip(tr("Exchange the selected agent with its pair partner: the server becomes the client"));
    m_vmUpButton = new QPushButton(tr("Start &VM lab"), this);
    m_vmUpButton->setToolTip(
        tr("Two QEMU lab hosts booting Debian's 6.12 kernel with the kernel's SMC-R and soft-RoCE (rxe): "
           "the ksmc transport and libsmcr over verbs, on any machine (smclab lab vm up). Under TCG "
           "every timing is emulated"));
    m_vmDownButton = new QPushButton(tr("Stop VM lab"), this);
    m_vmDownButton->setToolTip(tr("Power the VM lab hosts off and take them out of the lab file (smclab lab vm down)"));
    for (QPushButton* b : {addButton, deployButton, m_connectButton, m_disconnectButton, m_removeButton, m_swapButton,
                           m_vmUpButton, m_vmDownButton})
        buttons->addWidget(b);
    buttons->addStretch();
    // The buddy makes Alt+K reach the box and hides the ampersand.
    auto* linkLabel = new QLabel(tr("Lin&k:"), this);
    linkLabel->setBuddy(m_linkBox);
    buttons->addWidget(linkLabel);
    buttons->addWidget(m_linkBox);
    buttons->addWidget(m_localButton);
    connect(addButton, &QPushButton::clicked, this, &HostsPage::askForHost);
    connect(deployButton, &QPushButton::clicked, this, &HostsPage::deployAgent);
    connect(m_vmUpButton, &QPushButton::clicked, this, &HostsPage::startVmLab);
    connect(m_vmDownButton, &QPushButton::clicked, this, &HostsPage::stopVmLab);
    return buttons;
}

// The selected agent's capabilities as a form, or its hello as JSON.
QWidget* HostsPage::makeDetailsBox(QWidget* parent) {
    auto* detailsBox = new QWidget(parent);
    auto* detailsLayout = new QVBoxLayout(detailsBox);
    detailsLayout->setContentsMargins(0, 0, 0, 0);
    m_form = new QTextBrowser(detailsBox);
    m_form->setPlaceholderText(tr("The selected agent's capabilities appear here."));
    m_details = new QPlainTextEdit(detailsBox);
    m_details->setReadOnly(true);
    m_details->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_details->hide();
    m_jsonButton = new QPushButton(tr("Show &JSON"), detailsBox);
    m_jsonButton->setCheckable(true);
    m_jsonButton->setToolTip(tr("The agent's hello message as it arrived"));
    auto* detailsBar = new QHBoxLayout;
    detailsBar->addStretch();
    detailsBar->addWidget(m_jsonButton);
    detailsLayout->addLayout(detailsBar);
    detailsLayout->addWidget(m_form, 1);
    detailsLayout->addWidget(m_details, 1);
    return detailsBox;
}

void HostsPage::askForHost() {
    AddHostDialog dialog(this);
    if (dialog.exec() != QDialog::Accepted) return;
    HostRow row;
    row.address = dialog.address();
    row.token = dialog.token();
    row.tokenFile = dialog.tokenFile();
    row.tls = dialog.tls();
    addHost(row);
}

void HostsPage::connectHostSignals() {
    const auto selectedRow = [this] {
        const QModelIndexList rows = m_table->selectionModel()->selectedRows();
        return rows.isEmpty() ? -1 : rows.front().row();
    };
    connect(m_jsonButton, &QPushButton::toggled, this, &HostsPage::setJsonShown);
    connect(m_swapButton, &QPushButton::clicked, this, &HostsPage::swapSelectedRoles);
    connect(m_connectButton, &QPushButton::clicked, this, [this, selectedRow] { connectHost(selectedRow()); });
    connect(m_disconnectButton, &QPushButton::clicked, this, [this, selectedRow] { disconnectHost(selectedRow()); });
    connect(m_removeButton, &QPushButton::clicked, this, [this, selectedRow] { removeHost(selectedRow()); });
    connect(m_localButton, &QPushButton::clicked, this, &HostsPage::startLocalLab);
    const auto refresh = [this] {
        showDetails();
        updateWidgets();
    };
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this, refresh);
    connect(m_model, &QAbstractItemModel::dataChanged, this, refresh);
    connect(m_localLab, &LocalLab::agentStarted, this, [this](const QString& address) {
        HostRow row;
        row.address = address;
        row.token = m_localLab->token();
        row.local = true;
        addHost(row);
    });
    connect(m_localLab, &LocalLab::failed, m_lab, &LabContext::reportError);
    connect(m_localLab, &LocalLab::allStarted, this, [this] {
        updateWidgets();
        m_lab->reportInfo(tr("Local lab: %1").arg(localWireText()));
    });
}

HostsPage::~HostsPage() {
    // Close the connections before the local agents go away.
    for (AgentClient* client : std::as_const(m_clients)) client->disconnect(this);
}

QString HostsPage::tokenFor(const HostRow& row, QString* error) const {
    if (!row.token.isEmpty()) return row.token;
    if (row.tokenFile.isEmpty()) {
        *error = tr("no token for %1").arg(row.address);
        return {};
    }
    QFile file(row.tokenFile);
    if (!file.open(QIODevice::ReadOnly)) {
        *error = tr("cannot read the token file %1: %2").arg(row.tokenFile, file.errorString());
        return {};
    }
    return QString::fromUtf8(file.readAll()).trimmed();
}

void HostsPage::addHost(const HostRow& row) {
    const int at = m_model->addHost(row);
    connectHost(at);
    m_table->selectRow(at);
    emit agentsChanged();
}

void HostsPage::connectHost(int row) {
    if (row < 0 || row >= m_model->rowCount()) return;
    const HostRow& host = m_model->host(row);
    QString error;
    const QString token = tokenFor(host, &error);
    if (token.isEmpty()) {
        m_model->setState(row, HostState::failed, error);
        m_lab->reportError(tr("Cannot connect to %1: %2").arg(host.address, error));
        return;
    }
    QString name;
    quint16 port = 0;
    if (!orchestrator::splitHostPort(host.address, &name, &port)) {
        m_model->setState(row, HostState::failed, tr("not HOST:PORT"));
        return;
    }
    const QString address = host.address;
    AgentClient* client = m_clients.value(address);
    if (client == nullptr) {
        client = new AgentClient(this);
        m_clients.insert(address, client);
        // The row of an address can move when hosts are removed: look it up each time.
        connect(client, &AgentClient::helloReceived, this, [this, address](const protocol::Hello& hello) {
            const int r = m_model->findAddress(address);
            m_model->setHello(r, hello);
            m_model->setState(r, HostState::connected);
            m_lab->reportInfo(tr("Connected to %1 (%2)").arg(address, hello.capabilities.host.hostname));
            emit agentsChanged();
        });
        connect(client, &AgentClient::connectionFailed, this, [this, address](const QString& why) {
            m_model->setState(m_model->findAddress(address), HostState::failed, why);
            m_lab->reportError(tr("Cannot connect to %1: %2").arg(address, why));
            emit agentsChanged();
        });
        connect(client, &AgentClient::disconnected, this, [this, address] {
            const int r = m_model->findAddress(address);
            if (r >= 0 && m_model->host(r).state != HostState::failed) m_model->setState(r, HostState::disconnected);
            emit agentsChanged();
        });
    }
    AgentConnectOptions options;
    options.token = token;
    options.tls = host.tls;
    options.ignoreSslErrors = host.tls;  // lab agents use self-signed certificates
    m_model->setState(row, HostState::connecting);
    client->connectToAgent(name, port, options);
}

void HostsPage::disconnectHost(int row) {
    if (row < 0 || row >= m_model->rowCount()) return;
    if (AgentClient* client = m_clients.value(m_model->host(row).address)) client->disconnectFromAgent();
    m_model->setState(row, HostState::disconnected);
    emit agentsChanged();
}

void HostsPage::removeHost(int row) {
    if (row < 0 || row >= m_model->rowCount()) return;
    if (AgentClient* client = m_clients.take(m_model->host(row).address)) {
        client->disconnect(this);
        client->disconnectFromAgent();
        client->deleteLater();
    }
    m_model->removeHost(row);
    saveHosts();
    emit agentsChanged();
}

void HostsPage::startLocalLab() {
    // Drop the agents of an earlier local lab: their processes are replaced.
    for (int r = m_model->rowCount() - 1; r >= 0; --r) {
        if (m_model->host(r).local) removeHost(r);
    }
    // Setting up the namespace and waiting for the agents takes a moment.
    QApplication::setOverrideCursor(Qt::WaitCursor);
    m_localLab->start(localLinkModel(), 2);
    QApplication::restoreOverrideCursor();
    updateWidgets();
}

QString HostsPage::localLinkModel() const {
    return m_linkBox->currentText();
}

void HostsPage::setLocalLinkModel(const QString& model) {
    m_linkBox->setCurrentText(model);
}

QString HostsPage::localWireText() const {
    if (!m_localLab->isRunning()) return {};
    return m_localLab->wire().note;
}

void HostsPage::deployAgent() {
    auto* dialog = new DeployDialog(this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &DeployDialog::deployed, this, [this](const QString& host, const QString& labFile) {
        if (addLabFileHosts(labFile, {host}) > 0) m_lab->reportInfo(tr("Deployed an agent on %1").arg(host));
    });
    dialog->show();
}

void HostsPage::ensureVmLabRunner() {
    if (m_vmLab == nullptr) {
        m_vmLab = new VmLabRunner(this);
        connect(m_vmLab, &VmLabRunner::progress, this, [this](const QString& host, const QString& step) {
            m_lab->reportInfo(host.isEmpty() ? tr("VM lab: %1").arg(step) : tr("VM lab %1: %2").arg(host, step));
        });
        connect(m_vmLab, &VmLabRunner::upFinished, this, [this](bool ok, const QStringList& hosts, const QString& why) {
            m_vmUpButton->setEnabled(true);
            m_vmDownButton->setEnabled(true);
            if (!ok) {
                m_lab->reportError(tr("The VM lab did not come up: %1").arg(why));
                return;
            }
            const QString labFile = lab::resolveLabPath(QString());
            QString error;
            if (const auto labHosts = lab::loadLab(labFile, &error)) {
                for (const lab::LabHost& h : labHosts->hosts)
                    if (hosts.contains(h.host))
                        m_vmAddresses << QStringLiteral("%1:%2").arg(h.dialHost()).arg(h.agentPort);
            }
            addLabFileHosts(labFile, hosts);
            m_lab->reportInfo(tr("VM lab up: %1").arg(hosts.join(QStringLiteral(", "))));
        });
        connect(
            m_vmLab, &VmLabRunner::downFinished, this, [this](bool ok, const QStringList& hosts, const QString& why) {
                m_vmUpButton->setEnabled(true);
                m_vmDownButton->setEnabled(true);
                for (int r = m_model->rowCount() - 1; r >= 0; --r)
                    if (m_vmAddresses.contains(m_model->host(r).address)) removeHost(r);
                m_vmAddresses.clear();
                saveHosts();
                if (!ok)
                    m_lab->reportError(tr("Stopping the VM lab: %1").arg(why));
                else
                    m_lab->reportInfo(hosts.isEmpty() ? tr("No VM lab host was running")
                                                      : tr("VM lab stopped: %1").arg(hosts.join(QStringLiteral(", "))));
            });
    }
}

void HostsPage::startVmLab() {
    ensureVmLabRunner();
    if (!m_vmLab->startUp(lab::resolveLabPath(QString()), 2)) return;
    m_vmUpButton->setEnabled(false);
    m_vmDownButton->setEnabled(false);
    m_lab->reportInfo(tr("Starting the VM lab: two QEMU hosts (tens of seconds under TCG)"));
}

void HostsPage::stopVmLab() {
    ensureVmLabRunner();
    if (!m_vmLab->startDown(lab::resolveLabPath(QString()))) return;
    m_vmUpButton->setEnabled(false);
    m_vmDownButton->setEnabled(false);
}

int HostsPage::addLabFileHosts(const QString& labFile, const QStringList& only) {
    QString why;
    const std::optional<lab::LabFile> lab = lab::loadLab(labFile, &why);
    if (!lab) {
        m_lab->reportError(tr("Cannot read the lab file %1: %2").arg(labFile, why));
        return 0;
    }
    int added = 0;
    for (const lab::LabHost& host : lab->hosts) {
        if (!only.isEmpty() && !only.contains(host.host)) continue;
        // A redeployed host replaces its row: the agent has a new token.
        HostRow row;
        row.address = QStringLiteral("%1:%2").arg(host.dialHost()).arg(host.agentPort);
        row.tokenFile = host.tokenFile;
        addHost(row);
        ++added;
    }
    saveHosts();
    return added;
}

void HostsPage::saveHosts() const {
    QList<SavedHost> saved;
    for (const HostRow& row : m_model->hosts()) {
        if (row.local) continue;  // those agents end with this program
        saved.append({row.address, row.tls, row.tokenFile});
    }
    AppSettings::setHosts(saved);
}

void HostsPage::restoreHosts() {
    for (const SavedHost& saved : AppSettings::hosts()) {
        HostRow row;
        row.address = saved.address;
        row.tls = saved.tls;
        row.tokenFile = saved.tokenFile;
        const int at = m_model->addHost(row);
        // Hosts with a token file reconnect by themselves; typed tokens were not kept.
        if (!row.tokenFile.isEmpty()) connectHost(at);
    }
}

QList<AgentEndpoint> HostsPage::connectedAgents() const {
    QList<AgentEndpoint> out;
    for (const HostRow& row : m_model->hosts()) {
        if (row.state != HostState::connected) continue;
        QString error;
        out.append({row.address, tokenFor(row, &error), row.tls, row.local ? m_localLab->wireJson() : QJsonObject()});
    }
    return out;
}

void HostsPage::showDetails() {
    const QModelIndexList rows = m_table->selectionModel()->selectedRows();
    if (rows.isEmpty()) {
        m_details->clear();
        m_form->clear();
        return;
    }
    const HostRow& row = m_model->host(rows.front().row());
    if (row.hello.agentVersion.isEmpty()) {
        const QString text = row.error.isEmpty() ? tr("%1: %2").arg(row.address, hostStateName(row.state))
                                                 : tr("%1: %2").arg(row.address, row.error);
        m_details->setPlainText(text);
        m_form->setPlainText(text);
        return;
    }
    m_details->setPlainText(QString::fromUtf8(QJsonDocument(row.hello.toJson()).toJson(QJsonDocument::Indented)));
    m_form->setHtml(capabilitiesHtml(row.address, row.hello));
}

QString HostsPage::capabilitiesText() const {
    return m_form->toPlainText();
}

void HostsPage::setJsonShown(bool shown) {
    {
        const QSignalBlocker blocker(m_jsonButton);
        m_jsonButton->setChecked(shown);
    }
    m_jsonButton->setText(shown ? tr("Show &form") : tr("Show &JSON"));
    m_details->setVisible(shown);
    m_form->setVisible(!shown);
}

bool HostsPage::jsonShown() const {
    return m_details->isVisibleTo(this);
}

void HostsPage::swapSelectedRoles() {
    const QModelIndexList rows = m_table->selectionModel()->selectedRows();
    if (rows.isEmpty()) return;
    const int row = rows.front().row();
    const int partner = m_model->partnerRow(row);
    if (partner < 0) {
        m_lab->reportInfo(tr("%1 has no partner: it plays both roles.").arg(m_model->host(row).address));
        return;
    }
    if (m_model->host(row).local && m_localLab->inNamespace()) {
        // The server agent listens inside the wire's namespace and the client
        // on this host's loopback, which a namespace cannot reach.
        m_lab->reportInfo(
            tr("The local lab's server agent lives in the wire's network namespace: start the "
               "local lab again to change roles, or pick the ideal link (no namespace)."));
        return;
    }
    const QString address = m_model->host(row).address;
    m_model->swapRows(row, partner);
    m_table->selectRow(m_model->findAddress(address));
    m_lab->reportInfo(tr("%1 is now %2").arg(address, m_model->roleText(m_model->findAddress(address))));
    emit agentsChanged();
}

void HostsPage::updateWidgets() {
    const QModelIndexList rows = m_table->selectionModel()->selectedRows();
    const int row = rows.isEmpty() ? -1 : rows.front().row();
    const HostState state = row >= 0 ? m_model->host(row).state : HostState::invalid;
    m_connectButton->setEnabled(row >= 0 && state != HostState::connected && state != HostState::connecting);
    m_disconnectButton->setEnabled(state == HostState::connected || state == HostState::connecting);
    m_removeButton->setEnabled(row >= 0);
    const bool swappable =
        row >= 0 && m_model->partnerRow(row) >= 0 && !(m_model->host(row).local && m_localLab->inNamespace());
    m_swapButton->setEnabled(swappable);
    // A greyed button says why.
    if (swappable)
        m_swapButton->setToolTip(
            tr("Exchange the selected agent with its pair partner: the server becomes the client"));
    else if (row < 0)
        m_swapButton->setToolTip(tr("Select an agent to swap it with its pair partner"));
    else if (m_model->partnerRow(row) < 0)
        m_swapButton->setToolTip(tr("The selected agent has no pair partner to swap with"));
    else
        m_swapButton->setToolTip(tr("The local lab's server runs in its network namespace: its roles are fixed"));
    m_wireLabel->setText(m_localLab->isRunning() ? tr("Local lab wire: %1").arg(localWireText()) : QString());
    m_wireLabel->setVisible(m_localLab->isRunning());
    const int connected = static_cast<int>(connectedAgents().size());
    if (m_model->rowCount() == 0) {
        m_hint->setText(
            tr("No agents yet. Add one (smclab-agent --listen ADDR:PORT --token-file F on each lab "
               "host), or start the local lab to try everything on this machine."));
    } else {
        m_hint->setText(
            tr("%1 of %2 agents connected. Campaigns pair them in list order as server, client, server, "
               "client... (the Role column); a single agent plays both roles. Swap exchanges a pair's roles.")
                .arg(connected)
                .arg(m_model->rowCount()));
    }
}

}  // namespace smclab::gui
