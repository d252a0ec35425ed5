// "Deploy agent...": brings an smclab-agent up on a lab host by running the
// CLI's `smclab lab deploy` (agents/cli/cmd_lab.cpp: the user's own OpenSSH,
// BatchMode, a fresh token, its hello checked) as a process, its output shown
// as it comes. The host lands in the lab file the CLI uses (--lab, else
// $SMCLAB_LAB, else ~/.config/smclab/lab.json), from which the Hosts page
// adds it.
#pragma once

#include <QDialog>
#include <QProcess>

class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;

namespace smclab::gui {

class DeployDialog : public QDialog {
    Q_OBJECT
public:
    explicit DeployDialog(QWidget* parent = nullptr);
    ~DeployDialog() override;

    // The smclab CLI next to this program, else in SMCLAB_BIN_DIR.
    static QString cliProgram();

    void setHost(const QString& host);
    void setSshUser(const QString& user);
    void setSshPort(int port);  // 0 = ssh's own choice
    void setAgentPort(int port);
    void setLabFile(const QString& path);
    QString labFile() const;
    QString host() const;
    int agentPort() const;
    // `smclab lab deploy ...` as it will run (for the output's first line and tests).
    QStringList arguments() const;

    // Starts the deploy; false (and the reason in the output) when it cannot run.
    bool deploy();
    bool isRunning() const;
    QString outputText() const;
    QString statusText() const;

signals:
    // The deploy succeeded: `host` is in the lab file `labFile`.
    void deployed(const QString& host, const QString& labFile);
    void finished(bool ok);

private:
    void appendOutput(const QString& text);
    void updateWidgets();

    QLineEdit* m_host = nullptr;
    QLineEdit* m_user = nullptr;
    QSpinBox* m_sshPort = nullptr;
    QSpinBox* m_agentPort = nullptr;
    QLineEdit* m_labFile = nullptr;
    QPlainTextEdit* m_output = nullptr;
    QLabel* m_status = nullptr;
    QPushButton* m_deployButton = nullptr;
    QProcess* m_process = nullptr;
};

}  // namespace smclab::gui
