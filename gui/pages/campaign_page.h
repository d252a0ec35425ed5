// The campaign editor: start from a preset (datapath, sendfile-cork,
// fallback, credits) or a free matrix of workloads x columns of settings x
// message sizes x repetitions; validated as you type (the hint label names
// the field), with the number of runs and an estimated duration; the
// selected workload's client and server parameters as widgets built from the
// schema the agent validates them with (widgets/param_editor.h); campaign
// files are the orchestrator's JSON format.
#pragma once

#include <QJsonObject>
#include <QWidget>

#include "orchestrator/campaign_spec.h"

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLayout;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace smclab::gui {

class LabContext;
class ParamEditor;

class CampaignPage : public QWidget {
    Q_OBJECT
public:
    explicit CampaignPage(LabContext* lab, QWidget* parent = nullptr);

    void newCampaign();
    void loadPreset(const QString& name);
    void setCampaign(const orchestrator::CampaignSpec& spec);
    // The editor's campaign; *error gets the first problem when it is not valid.
    orchestrator::CampaignSpec campaign(QString* error = nullptr) const;
    QJsonObject campaignJson() const;
    bool isValid() const;
    QString hintText() const;
    QString estimateText() const;
    QString filePath() const { return m_path; }

    void openFile();
    bool openPath(const QString& path);
    void saveFile();
    void saveFileAs();
    bool savePath(const QString& path);
    // Remembers the editor's campaign for the next start (AppSettings);
    // the constructor restores it, so a restart continues where it stopped.
    void saveDraft() const;
    // Emits runRequested() when the campaign is valid; else explains why not.
    void requestRun();
    // How many agents the Hosts page has connected: the hint says when a
    // campaign that is ready has none to run on.
    void setConnectedAgentCount(int count);

    QTableWidget* columnsTable() const { return m_columns; }
    QTableWidget* workloadsTable() const { return m_workloads; }
    QLineEdit* sizesEdit() const { return m_sizes; }
    ParamEditor* clientParamEditor() const { return m_clientParams; }
    ParamEditor* serverParamEditor() const { return m_serverParams; }

signals:
    void runRequested();

private:
    // The constructor's parts, top to bottom; connectEditors() last, so
    // setting up the widgets does not run updateWidgets().
    QLayout* makeNameRow();
    QWidget* makeWorkloadsBox();
    QWidget* makeColumnsBox();
    QWidget* makeMatrixBox();
    QLayout* makeFileButtons();
    void connectEditors();
    // The tables' rows as the campaign's; a cell that does not parse adds to *problems.
    std::vector<orchestrator::WorkloadSpec> workloadsFromTable(QStringList* problems) const;
    std::vector<orchestrator::ColumnSpec> columnsFromTable(QStringList* problems) const;
    void addWorkloadRow(const orchestrator::WorkloadSpec& workload);
    void addColumnRow(const orchestrator::ColumnSpec& column);
    void updateWidgets();
    void restoreDraft();
    QWidget* makeParamsBox();
    // The parameter editors show workload row `row` (-1: none).
    void showWorkloadParams(int row);
    void storeWorkloadParams();

    LabContext* m_lab = nullptr;
    orchestrator::CampaignSpec m_base;  // fields the editor does not show (params, transport options)
    // The description the preset or file came with, kept in the notes of an
    // edited campaign (m_base.description follows the rewritten notes).
    QString m_originalDescription;
    // The workloads and columns as loaded: an edit of their parameters or
    // settings is written into the notes.
    std::vector<orchestrator::WorkloadSpec> m_loadedWorkloads;
    std::vector<orchestrator::ColumnSpec> m_loadedColumns;
    QString m_path;
    bool m_loading = false;

    QComboBox* m_preset = nullptr;
    QLineEdit* m_name = nullptr;
    QLineEdit* m_description = nullptr;
    QTableWidget* m_workloads = nullptr;
    QTableWidget* m_columns = nullptr;
    QLineEdit* m_sizes = nullptr;
    QSpinBox* m_repetitions = nullptr;
    QDoubleSpinBox* m_duration = nullptr;
    QDoubleSpinBox* m_warmup = nullptr;
    QSpinBox* m_sampleInterval = nullptr;
    QComboBox* m_baseline = nullptr;
    QLabel* m_estimate = nullptr;
    int m_connectedAgents = 0;
    QLabel* m_hint = nullptr;
    QPushButton* m_runButton = nullptr;
    ParamEditor* m_clientParams = nullptr;
    ParamEditor* m_serverParams = nullptr;
    QLabel* m_paramsTitle = nullptr;
    int m_paramsRow = -1;
};

}  // namespace smclab::gui
