// "Deploy agent...": brings an smclab-agent up on a lab host through the lab
// library's SSH deploy (agents/lab/lab_deploy.h: the user's own OpenSSH,
// BatchMode, a fresh token, its hello checked) on a worker thread
// (run/deploy_runner.h), its steps shown as they come, in the words
// `smclab lab deploy` prints. The host lands in the lab file the CLI uses
// (--lab, else $SMCLAB_LAB, else ~/.config/smclab/lab.json), from which the
// Hosts page adds it.
#pragma once

#include <QDialog>

#include "lab_deploy.h"

class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;

namespace smclab::gui {

class DeployRunner;

class DeployDialog : public QDialog {
    Q_OBJECT
public:
    explicit DeployDialog(QWidget* parent = nullptr);

    void setHost(const QString& host);
    void setSshUser(const QString& user);
    void setSshPort(int port);  // 0 = ssh's own choice
    void setAgentPort(int port);
    void setLabFile(const QString& path);
    QString labFile() const;
    QString host() const;
    int agentPort() const;
    // What the deploy will be given (for tests).
    lab::DeployOptions options() const;

    // Starts the deploy; false (and the reason in the output) when it cannot run.
    bool deploy();
    bool isRunning() const;
    QString outputText() const;
    QString statusText() const;

signals:
    // The deploy succeeded: `host` is in the lab file `labFile`.
    void deployed(const QString& host, const QString& labFile);
    void finished(bool ok);

public slots:
    // Closing waits for nothing: while a deploy runs the dialog stays open,
    // since the deploy cannot be cut short (ssh's timeouts end it).
    void reject() override;

private:
    void onFinished(bool ok, const QString& host, const QString& why);
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
    DeployRunner* m_runner = nullptr;
};

}  // namespace smclab::gui
