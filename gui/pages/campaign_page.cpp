#include "pages/campaign_page.h"

#include <tuple>

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>

#include "app/app_settings.h"
#include "app/lab_context.h"
#include "data/settings_text.h"
#include "orchestrator/campaign_json.h"
#include "orchestrator/cell_matrix.h"
#include "orchestrator/presets.h"
#include "orchestrator/size_text.h"
#include "orchestrator/workload_params.h"
#include "widgets/param_editor.h"

namespace smclab::gui {

namespace {

enum WorkloadColumn { wlLabel = 0, wlWorkload, wlSizes, wlCount };
enum ColumnColumn { colLabel = 0, colTransport, colClientTransport, colSettings, colClientSettings, colCount };
// Item data on a row's label item: the JSON parts the table does not show.
constexpr int kHiddenRole = Qt::UserRole + 1;

QString sizesToText(const std::vector<uint64_t>& sizes) {
    QStringList parts;
    for (uint64_t s : sizes) parts.append(QString::number(s));
    // A doubling series from a power of two reads best as qperf's loop.
    bool doubling = sizes.size() > 2;
    for (size_t i = 1; doubling && i < sizes.size(); ++i) doubling = sizes[i] == sizes[i - 1] * 2;
    if (doubling) {
        const auto fmt = [](uint64_t v) {
            return v >= 1024 && v % 1024 == 0 ? QStringLiteral("%1K").arg(v / 1024) : QString::number(v);
        };
        return QStringLiteral("%1:%2:*2").arg(fmt(sizes.front()), fmt(sizes.back()));
    }
    return parts.join(QLatin1Char(','));
}

std::vector<std::vector<uint64_t>> perWorkloadSizes(const orchestrator::CampaignSpec& spec) {
    std::vector<std::vector<uint64_t>> out;
    for (const orchestrator::WorkloadSpec& workload : spec.workloads) out.push_back(workload.sizes);
    return out;
}

QComboBox* makeCombo(QWidget* parent, const QStringList& items, const QString& current) {
    auto* combo = new QComboBox(parent);
    combo->addItems(items);
    combo->setCurrentText(current);
    return combo;
}

QStringList knownWorkloads() {
    QStringList out;
    for (const char* name : orchestrator::kKnownWorkloads) out.append(QString::fromLatin1(name));
    return out;
}

QStringList knownTransports() {
    QStringList out;
    for (const char* name : orchestrator::kKnownTransports) out.append(QString::fromLatin1(name));
    return out;
}

}  // namespace

namespace {

// The sizes a campaign runs, as the notes say them: the campaign's as the
// user wrote them ("64,4K", "1:64K:*2"), or each workload's own ("qperf
// 1:64K:*2; redis 3,1K").
QString sizesDescription(const orchestrator::CampaignSpec& spec, const QString& sizesText) {
    if (!spec.sizes.empty()) return sizesText.isEmpty() ? sizesToText(spec.sizes) : sizesText;
    QStringList parts;
    for (const orchestrator::WorkloadSpec& workload : spec.workloads) {
        const auto& sizes = spec.sizesFor(workload);
        parts << QStringLiteral("%1 %2").arg(workload.label.isEmpty() ? workload.workload : workload.label,
                                             sizes.empty() ? QStringLiteral("-") : sizesToText(sizes));
    }
    return parts.join(QStringLiteral("; "));
}

QString paramsText(const QJsonObject& params) {
    QStringList parts;
    for (auto it = params.begin(); it != params.end(); ++it) {
        const QJsonValue v = it.value();
        const QString value =
            v.isString() ? v.toString()
            : v.isBool() ? (v.toBool() ? QStringLiteral("true") : QStringLiteral("false"))
            : v.isDouble()
                ? QString::number(v.toDouble(), 'g', 15)
                : QString::fromUtf8(QJsonDocument(QJsonObject{{QString(), v}}).toJson(QJsonDocument::Compact));
        parts << QStringLiteral("%1=%2").arg(it.key(), value);
    }
    return parts.join(QLatin1Char(' '));
}

// What was edited in the workloads' parameters and the columns' settings
// against what was loaded: "qperf: requests=20000; column TCP: wmem=...".
QStringList parameterEdits(const orchestrator::CampaignSpec& spec,
                           const std::vector<orchestrator::WorkloadSpec>& workloads,
                           const std::vector<orchestrator::ColumnSpec>& columns) {
    QStringList edits;
    const auto changed = [](const QJsonObject& now, const QJsonObject& before) {
        QJsonObject out;
        for (auto it = now.begin(); it != now.end(); ++it) {
            if (before.value(it.key()) != it.value()) out.insert(it.key(), it.value());
        }
        return out;
    };
    for (size_t i = 0; i < spec.workloads.size(); ++i) {
        const orchestrator::WorkloadSpec& w = spec.workloads[i];
        const orchestrator::WorkloadSpec before = i < workloads.size() ? workloads[i] : orchestrator::WorkloadSpec{};
        const QString name = w.label.isEmpty() ? w.workload : w.label;
        if (const QJsonObject p = changed(w.params, before.params); !p.isEmpty())
            edits << QObject::tr("%1 %2").arg(name, paramsText(p));
        if (const QJsonObject p = changed(w.serverParams, before.serverParams); !p.isEmpty())
            edits << QObject::tr("%1 server %2").arg(name, paramsText(p));
    }
    for (size_t i = 0; i < spec.columns.size(); ++i) {
        const orchestrator::ColumnSpec& c = spec.columns[i];
        const orchestrator::ColumnSpec before = i < columns.size() ? columns[i] : orchestrator::ColumnSpec{};
        if (const QJsonObject p = changed(c.settings, before.settings); !p.isEmpty())
            edits << QObject::tr("column %1 %2").arg(c.label, paramsText(p));
        if (const QJsonObject p = changed(c.params, before.params); !p.isEmpty())
            edits << QObject::tr("column %1 %2").arg(c.label, paramsText(p));
    }
    return edits;
}

// "Edited from preset datapath: sizes 64,4K, 2 s per cell after 500 ms
// warm-up, 1 repetition(s), a sample every 1000 ms; parameters qperf
// requests=20000; percentages against SMC-NoCork. The preset: ..."
QString describeEdited(const orchestrator::CampaignSpec& spec, const QString& preset, const QString& sizesText,
                       const QStringList& edits, const QString& original) {
    QString text =
        QObject::tr("%1sizes %2, %3 per cell after %4 warm-up, %5 repetition(s), a sample every %6 ms%7%8")
            .arg(preset.isEmpty() ? QString() : QObject::tr("Edited from preset %1: ").arg(preset))
            .arg(sizesDescription(spec, sizesText))
            .arg(orchestrator::formatExactDurationMs(spec.durationMs))
            .arg(orchestrator::formatExactDurationMs(spec.warmupMs))
            .arg(spec.repetitions)
            .arg(spec.sampleIntervalMs)
            .arg(edits.isEmpty() ? QString() : QObject::tr("; parameters %1").arg(edits.join(QStringLiteral("; "))))
            .arg(spec.baseline.isEmpty() ? QString() : QObject::tr("; percentages against %1").arg(spec.baseline));
    if (!original.isEmpty())
        text += (preset.isEmpty() ? QObject::tr(". As loaded: %1") : QObject::tr(". The preset: %1")).arg(original);
    return text;
}

}  // namespace

CampaignPage::CampaignPage(LabContext* lab, QWidget* parent) : QWidget(parent), m_lab(lab) {
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(makeNameRow());
    m_description = new QLineEdit(this);
    m_description->setPlaceholderText(tr("description (what this campaign compares)"));
    layout->addWidget(m_description);
    // The selected workload's parameters beside its table (the page fits 1280x800).
    auto* workloadsRow = new QHBoxLayout;
    workloadsRow->addWidget(makeWorkloadsBox(), 1);
    workloadsRow->addWidget(makeParamsBox(), 1);
    layout->addLayout(workloadsRow);
    layout->addWidget(makeColumnsBox(), 1);
    layout->addWidget(makeMatrixBox());
    m_estimate = new QLabel(this);
    layout->addWidget(m_estimate);
    m_hint = new QLabel(this);
    m_hint->setWordWrap(true);
    layout->addWidget(m_hint);
    layout->addLayout(makeFileButtons());
    connectEditors();

    loadPreset(QStringLiteral("datapath"));
    restoreDraft();
}

QLayout* CampaignPage::makeNameRow() {
    auto* top = new QHBoxLayout;
    m_preset = new QComboBox(this);
    m_preset->addItem(tr("(free matrix)"));
    for (const auto& preset : orchestrator::presetList()) {
        m_preset->addItem(QString::fromLatin1(preset.name));
        m_preset->setItemData(m_preset->count() - 1, QString::fromLatin1(preset.summary), Qt::ToolTipRole);
    }
    auto* presetLabel = new QLabel(tr("&Preset:"), this);
    presetLabel->setBuddy(m_preset);
    top->addWidget(presetLabel);
    top->addWidget(m_preset);
    m_name = new QLineEdit(this);
    m_name->setPlaceholderText(tr("campaign name"));
    auto* nameLabel = new QLabel(tr("&Name:"), this);
    nameLabel->setBuddy(m_name);
    top->addSpacing(12);
    top->addWidget(nameLabel);
    top->addWidget(m_name, 1);
    return top;
}

QWidget* CampaignPage::makeWorkloadsBox() {
    auto* workloadsBox = new QGroupBox(tr("Workloads (one table each)"), this);
    auto* wlLayout = new QVBoxLayout(workloadsBox);
    m_workloads = new QTableWidget(0, wlCount, workloadsBox);
    m_workloads->setHorizontalHeaderLabels({tr("Table label"), tr("Workload"), tr("Sizes (override)")});
    m_workloads->horizontalHeader()->setSectionResizeMode(wlSizes, QHeaderView::Stretch);
    m_workloads->verticalHeader()->hide();
    m_workloads->setMaximumHeight(130);
    wlLayout->addWidget(m_workloads);
    auto* wlButtons = new QHBoxLayout;
    auto* addWl = new QPushButton(tr("Add workload"), workloadsBox);
    auto* delWl = new QPushButton(tr("Remove"), workloadsBox);
    wlButtons->addWidget(addWl);
    wlButtons->addWidget(delWl);
    wlButtons->addStretch();
    wlLayout->addLayout(wlButtons);
    connect(addWl, &QPushButton::clicked, this, [this] {
        addWorkloadRow({tr("Bandwidth"), QStringLiteral("tcp_bw"), {}, {}, {}});
        updateWidgets();
    });
    connect(delWl, &QPushButton::clicked, this, [this] {
        m_workloads->removeRow(m_workloads->currentRow());
        updateWidgets();
    });
    return workloadsBox;
}

QWidget* CampaignPage::makeColumnsBox() {
    auto* columnsBox = new QGroupBox(tr("Columns (settings variants; the first is the default baseline)"), this);
    auto* colLayout = new QVBoxLayout(columnsBox);
    m_columns = new QTableWidget(0, colCount, columnsBox);
    m_columns->setHorizontalHeaderLabels({tr("Column label"), tr("Transport"), tr("Client transport"),
                                          tr("Settings (name=value, ...)"),
                                          tr("Client settings (another client transport only)")});
    m_columns->horizontalHeader()->setSectionResizeMode(colSettings, QHeaderView::Stretch);
    m_columns->verticalHeader()->hide();
    colLayout->addWidget(m_columns);
    auto* colButtons = new QHBoxLayout;
    auto* addCol = new QPushButton(tr("Add column"), columnsBox);
    auto* delCol = new QPushButton(tr("Remove"), columnsBox);
    colButtons->addWidget(addCol);
    colButtons->addWidget(delCol);
    colButtons->addStretch();
    colLayout->addLayout(colButtons);
    connect(addCol, &QPushButton::clicked, this, [this] {
        addColumnRow({tr("Column %1").arg(m_columns->rowCount() + 1), QStringLiteral("smcr"), {}, {}, {}, {}});
        updateWidgets();
    });
    connect(delCol, &QPushButton::clicked, this, [this] {
        m_columns->removeRow(m_columns->currentRow());
        updateWidgets();
    });
    return columnsBox;
}

QWidget* CampaignPage::makeMatrixBox() {
    auto* matrixBox = new QGroupBox(tr("Matrix"), this);
    auto* form = new QFormLayout(matrixBox);
    m_sizes = new QLineEdit(matrixBox);
    m_sizes->setPlaceholderText(tr("1:64K:*2 (qperf -oo loop) or 64,4K,64K"));
    form->addRow(tr("Message &sizes:"), m_sizes);
    m_repetitions = new QSpinBox(matrixBox);
    m_repetitions->setRange(1, orchestrator::kMaxRepetitions);
    m_duration = new QDoubleSpinBox(matrixBox);
    m_duration->setRange(0.1, 3600.0);
    m_duration->setDecimals(3);  // whole milliseconds, as stored
    m_duration->setSuffix(tr(" s"));
    m_warmup = new QDoubleSpinBox(matrixBox);
    m_warmup->setRange(0.0, 600.0);
    m_warmup->setDecimals(3);
    m_warmup->setSuffix(tr(" s"));
    m_sampleInterval = new QSpinBox(matrixBox);
    m_sampleInterval->setRange(orchestrator::kMinSampleIntervalMs, 60'000);
    m_sampleInterval->setSingleStep(100);
    m_sampleInterval->setSuffix(tr(" ms"));
    m_baseline = new QComboBox(matrixBox);
    auto* numbers = new QHBoxLayout;
    const std::pair<QString, QWidget*> fields[] = {{tr("Repetitions:"), m_repetitions},
                                                   {tr("Duration:"), m_duration},
                                                   {tr("Warm-up:"), m_warmup},
                                                   {tr("Sample every:"), m_sampleInterval},
                                                   {tr("Baseline:"), m_baseline}};
    for (const auto& [label, field] : fields) {
        numbers->addWidget(new QLabel(label, matrixBox));
        numbers->addWidget(field, field == m_baseline ? 1 : 0);
    }
    form->addRow(numbers);
    return matrixBox;
}

QLayout* CampaignPage::makeFileButtons() {
    auto* buttons = new QHBoxLayout;
    auto* openButton = new QPushButton(tr("&Open..."), this);
    auto* saveButton = new QPushButton(tr("&Save"), this);
    auto* saveAsButton = new QPushButton(tr("Save &as..."), this);
    m_runButton = new QPushButton(tr("&Run campaign"), this);
    m_runButton->setDefault(true);
    buttons->addWidget(openButton);
    buttons->addWidget(saveButton);
    buttons->addWidget(saveAsButton);
    buttons->addStretch();
    buttons->addWidget(m_runButton);
    connect(openButton, &QPushButton::clicked, this, &CampaignPage::openFile);
    connect(saveButton, &QPushButton::clicked, this, &CampaignPage::saveFile);
    connect(saveAsButton, &QPushButton::clicked, this, &CampaignPage::saveFileAs);
    connect(m_runButton, &QPushButton::clicked, this, &CampaignPage::requestRun);
    return buttons;
}

void CampaignPage::connectEditors() {
    connect(m_preset, &QComboBox::activated, this, [this](int index) {
        if (index > 0) loadPreset(m_preset->itemText(index));
    });
    connect(m_workloads, &QTableWidget::itemChanged, this, [this] { updateWidgets(); });
    connect(m_workloads, &QTableWidget::currentCellChanged, this, [this](int row) { showWorkloadParams(row); });
    connect(m_columns, &QTableWidget::itemChanged, this, [this] { updateWidgets(); });
    for (QLineEdit* edit : {m_name, m_description, m_sizes}) {
        connect(edit, &QLineEdit::textChanged, this, [this] { updateWidgets(); });
    }
    connect(m_repetitions, &QSpinBox::valueChanged, this, [this] { updateWidgets(); });
    connect(m_sampleInterval, &QSpinBox::valueChanged, this, [this] { updateWidgets(); });
    connect(m_duration, &QDoubleSpinBox::valueChanged, this, [this] { updateWidgets(); });
    connect(m_warmup, &QDoubleSpinBox::valueChanged, this, [this] { updateWidgets(); });
}

void CampaignPage::saveDraft() const {
    AppSettings::setCampaignDraft(campaignJson());
}

void CampaignPage::restoreDraft() {
    const QJsonObject draft = AppSettings::campaignDraft();
    if (draft.isEmpty()) return;
    const auto spec = orchestrator::campaignFromJson(draft);
    if (!spec) {
        m_lab->reportInfo(tr("The campaign of the last session could not be restored: %1")
                              .arg(QString::fromStdString(spec.error().message)));
        return;
    }
    setCampaign(spec.value());
    const int preset = m_preset->findText(spec->preset);
    if (preset >= 0) {
        const QSignalBlocker blocker(m_preset);
        m_preset->setCurrentIndex(preset);
    }
}

void CampaignPage::newCampaign() {
    orchestrator::CampaignSpec spec;
    spec.name = tr("untitled");
    spec.workloads = {{tr("Bandwidth"), QStringLiteral("tcp_bw"), {}, {}, {}},
                      {tr("Latency"), QStringLiteral("tcp_lat"), {}, {}, {}}};
    spec.columns = {{QStringLiteral("TCP"), QStringLiteral("tcp"), {}, {}, {}, {}},
                    {QStringLiteral("SMC"), QStringLiteral("smcr"), {}, {}, {}, {}}};
    spec.sizes = {64, 4096, 65536};
    spec.durationMs = 2000;
    spec.transportOptions = QJsonObject{{QStringLiteral("fabric"), QStringLiteral("sim")}};
    m_path.clear();
    setCampaign(spec);
    m_preset->setCurrentIndex(0);
}

void CampaignPage::loadPreset(const QString& name) {
    const std::optional<orchestrator::CampaignSpec> spec = orchestrator::presetCampaign(name);
    if (!spec) {
        m_lab->reportError(tr("Unknown preset '%1'").arg(name));
        return;
    }
    m_path.clear();
    setCampaign(*spec);
    m_preset->setCurrentText(name);
}

void CampaignPage::addWorkloadRow(const orchestrator::WorkloadSpec& workload) {
    const int row = m_workloads->rowCount();
    m_workloads->insertRow(row);
    auto* label = new QTableWidgetItem(workload.label);
    label->setData(kHiddenRole, QJsonObject{{QStringLiteral("params"), workload.params},
                                            {QStringLiteral("serverParams"), workload.serverParams}});
    m_workloads->setItem(row, wlLabel, label);
    auto* combo = makeCombo(m_workloads, knownWorkloads(), workload.workload);
    connect(combo, &QComboBox::currentTextChanged, this, [this, combo] {
        // Another workload's parameters would not validate: it starts from its defaults.
        for (int r = 0; r < m_workloads->rowCount(); ++r) {
            if (m_workloads->cellWidget(r, wlWorkload) != combo) continue;
            if (QTableWidgetItem* item = m_workloads->item(r, wlLabel)) item->setData(kHiddenRole, QJsonObject{});
            if (r == m_workloads->currentRow()) showWorkloadParams(r);
        }
        updateWidgets();
    });
    m_workloads->setCellWidget(row, wlWorkload, combo);
    m_workloads->setItem(row, wlSizes,
                         new QTableWidgetItem(workload.sizes.empty() ? QString() : sizesToText(workload.sizes)));
}

QWidget* CampaignPage::makeParamsBox() {
    auto* box = new QGroupBox(tr("Parameters of the selected workload (ranges as the agent checks them)"), this);
    auto* boxLayout = new QVBoxLayout(box);
    // Scrolled: a tool with many parameters does not make the page taller.
    auto* scroll = new QScrollArea(box);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setMaximumHeight(150);
    auto* inner = new QWidget(scroll);
    auto* row = new QHBoxLayout(inner);
    m_clientParams = new ParamEditor(inner);
    m_serverParams = new ParamEditor(inner);
    m_paramsTitle = new QLabel(inner);
    auto* client = new QVBoxLayout;
    client->addWidget(m_paramsTitle);
    client->addWidget(m_clientParams);
    client->addStretch();
    auto* server = new QVBoxLayout;
    server->addWidget(new QLabel(tr("Server"), inner));
    server->addWidget(m_serverParams);
    server->addStretch();
    row->addLayout(client, 1);
    row->addLayout(server, 1);
    scroll->setWidget(inner);
    boxLayout->addWidget(scroll);
    for (ParamEditor* editor : {m_clientParams, m_serverParams})
        connect(editor, &ParamEditor::changed, this, &CampaignPage::storeWorkloadParams);
    return box;
}

void CampaignPage::showWorkloadParams(int row) {
    m_paramsRow = row;
    const auto* combo = row >= 0 ? qobject_cast<QComboBox*>(m_workloads->cellWidget(row, wlWorkload)) : nullptr;
    const QString name = combo ? combo->currentText() : QString();
    const workloads::Workload* workload = workloads::findWorkload(name.toStdString());
    const QTableWidgetItem* label = row >= 0 ? m_workloads->item(row, wlLabel) : nullptr;
    const QJsonObject hidden = label ? label->data(kHiddenRole).toJsonObject() : QJsonObject();
    // What the campaign sets itself: its duration, and each cell's size.
    QStringList clientHidden{QStringLiteral("duration_ms"), QStringLiteral("warmup_ms")};
    QStringList serverHidden = clientHidden;
    const orchestrator::SizeParam size = orchestrator::sizeParamFor(name);
    if (size.name != nullptr) {
        (size.side == orchestrator::ParamSide::client ? clientHidden : serverHidden) << QLatin1String(size.name);
    }
    m_paramsTitle->setText(workload ? tr("Client (%1)").arg(name) : tr("Client"));
    m_clientParams->setSchema(workload ? workload->schema(smcr::Side::client) : workloads::ParamSchema{},
                              hidden.value(QStringLiteral("params")).toObject(), clientHidden);
    m_serverParams->setSchema(workload ? workload->schema(smcr::Side::server) : workloads::ParamSchema{},
                              hidden.value(QStringLiteral("serverParams")).toObject(), serverHidden);
}

void CampaignPage::storeWorkloadParams() {
    QTableWidgetItem* label = m_paramsRow >= 0 ? m_workloads->item(m_paramsRow, wlLabel) : nullptr;
    if (label == nullptr) return;
    label->setData(kHiddenRole, QJsonObject{{QStringLiteral("params"), m_clientParams->values()},
                                            {QStringLiteral("serverParams"), m_serverParams->values()}});
}

void CampaignPage::addColumnRow(const orchestrator::ColumnSpec& column) {
    const int row = m_columns->rowCount();
    m_columns->insertRow(row);
    auto* label = new QTableWidgetItem(column.label);
    label->setData(kHiddenRole, QJsonObject{{QStringLiteral("params"), column.params},
                                            {QStringLiteral("serverParams"), column.serverParams}});
    m_columns->setItem(row, colLabel, label);
    auto* transport = makeCombo(m_columns, knownTransports(), column.transport);
    QStringList clientChoices = knownTransports();
    clientChoices.prepend(tr("(same)"));
    auto* client = makeCombo(m_columns, clientChoices,
                             column.clientTransport.isEmpty() ? clientChoices.front() : column.clientTransport);
    connect(transport, &QComboBox::currentTextChanged, this, [this] { updateWidgets(); });
    connect(client, &QComboBox::currentTextChanged, this, [this] { updateWidgets(); });
    m_columns->setCellWidget(row, colTransport, transport);
    m_columns->setCellWidget(row, colClientTransport, client);
    m_columns->setItem(row, colSettings, new QTableWidgetItem(settingsToText(column.settings)));
    m_columns->setItem(row, colClientSettings, new QTableWidgetItem(settingsToText(column.clientSettings)));
}

void CampaignPage::setCampaign(const orchestrator::CampaignSpec& spec) {
    m_loading = true;
    m_base = spec;
    m_originalDescription = spec.description;
    m_loadedWorkloads = spec.workloads;
    m_loadedColumns = spec.columns;
    m_name->setText(spec.name);
    m_description->setText(spec.description);
    m_workloads->setRowCount(0);
    for (const auto& workload : spec.workloads) addWorkloadRow(workload);
    m_columns->setRowCount(0);
    for (const auto& column : spec.columns) addColumnRow(column);
    m_workloads->resizeColumnToContents(wlLabel);
    m_columns->resizeColumnToContents(colLabel);
    m_workloads->setCurrentCell(spec.workloads.empty() ? -1 : 0, wlLabel);
    showWorkloadParams(m_workloads->currentRow());
    m_sizes->setText(spec.sizes.empty() ? QString() : sizesToText(spec.sizes));
    m_repetitions->setValue(spec.repetitions);
    m_duration->setValue(spec.durationMs / 1000.0);
    m_warmup->setValue(spec.warmupMs / 1000.0);
    m_sampleInterval->setValue(spec.sampleIntervalMs);
    m_loading = false;
    updateWidgets();
    if (!spec.baseline.isEmpty()) m_baseline->setCurrentText(spec.baseline);
}

std::vector<orchestrator::WorkloadSpec> CampaignPage::workloadsFromTable(QStringList* problems) const {
    std::vector<orchestrator::WorkloadSpec> workloads;
    for (int row = 0; row < m_workloads->rowCount(); ++row) {
        orchestrator::WorkloadSpec workload;
        const QTableWidgetItem* label = m_workloads->item(row, wlLabel);
        workload.label = label ? label->text().trimmed() : QString();
        const QJsonObject hidden = label ? label->data(kHiddenRole).toJsonObject() : QJsonObject();
        workload.params = hidden.value(QStringLiteral("params")).toObject();
        workload.serverParams = hidden.value(QStringLiteral("serverParams")).toObject();
        if (auto* combo = qobject_cast<QComboBox*>(m_workloads->cellWidget(row, wlWorkload))) {
            workload.workload = combo->currentText();
        }
        const QTableWidgetItem* sizes = m_workloads->item(row, wlSizes);
        if (sizes && !sizes->text().trimmed().isEmpty()) {
            QString why;
            const auto parsed = orchestrator::parseSizeListText(sizes->text().trimmed(), &why);
            if (parsed) {
                workload.sizes = *parsed;
            } else {
                problems->append(tr("workloads[%1].sizes: %2").arg(row).arg(why));
            }
        }
        workloads.push_back(workload);
    }
    return workloads;
}

std::vector<orchestrator::ColumnSpec> CampaignPage::columnsFromTable(QStringList* problems) const {
    std::vector<orchestrator::ColumnSpec> columns;
    for (int row = 0; row < m_columns->rowCount(); ++row) {
        orchestrator::ColumnSpec column;
        const QTableWidgetItem* label = m_columns->item(row, colLabel);
        column.label = label ? label->text().trimmed() : QString();
        const QJsonObject hidden = label ? label->data(kHiddenRole).toJsonObject() : QJsonObject();
        column.params = hidden.value(QStringLiteral("params")).toObject();
        column.serverParams = hidden.value(QStringLiteral("serverParams")).toObject();
        if (auto* combo = qobject_cast<QComboBox*>(m_columns->cellWidget(row, colTransport))) {
            column.transport = combo->currentText();
        }
        if (auto* combo = qobject_cast<QComboBox*>(m_columns->cellWidget(row, colClientTransport))) {
            column.clientTransport = combo->currentIndex() > 0 ? combo->currentText() : QString();
        }
        // The client's settings apply where the client runs another
        // transport (a libsmcr client's experiments against a kernel server).
        for (const auto& [cell, name, target] :
             {std::tuple{colSettings, "settings", &column.settings},
              std::tuple{colClientSettings, "clientSettings", &column.clientSettings}}) {
            const QTableWidgetItem* item = m_columns->item(row, cell);
            QString why;
            const auto parsed = settingsFromText(item ? item->text() : QString(), &why);
            if (parsed) {
                *target = *parsed;
            } else {
                problems->append(tr("columns[%1].%2: %3").arg(row).arg(QLatin1String(name), why));
            }
        }
        columns.push_back(column);
    }
    return columns;
}

orchestrator::CampaignSpec CampaignPage::campaign(QString* error) const {
    orchestrator::CampaignSpec spec = m_base;
    QStringList problems;
    spec.name = m_name->text().trimmed();
    spec.description = m_description->text().trimmed();
    const bool describedByBase = spec.description == m_base.description;
    spec.workloads = workloadsFromTable(&problems);
    spec.columns = columnsFromTable(&problems);
    // Empty is allowed when every workload has its own sizes (the
    // orchestrator's validation says otherwise).
    spec.sizes.clear();
    if (!m_sizes->text().trimmed().isEmpty()) {
        QString why;
        const auto sizes = orchestrator::parseSizeListText(m_sizes->text().trimmed(), &why);
        if (sizes) {
            spec.sizes = *sizes;
        } else {
            problems.append(tr("sizes: %1").arg(why));
        }
    }
    spec.repetitions = m_repetitions->value();
    spec.durationMs = static_cast<int>(m_duration->value() * 1000.0 + 0.5);
    spec.warmupMs = static_cast<int>(m_warmup->value() * 1000.0 + 0.5);
    spec.sampleIntervalMs = m_sampleInterval->value();
    spec.baseline = m_baseline->currentIndex() > 0 ? m_baseline->currentText() : QString();
    if (spec.preset != spec.name) spec.preset.clear();
    for (const orchestrator::SpecError& e : orchestrator::validateCampaign(spec)) problems.append(e.toString());
    if (error) *error = problems.isEmpty() ? QString() : problems.front();
    // A preset's description names its sizes and times ("-oo msg_size:1:64K:*2
    // -t 30"); once those are edited it would describe another campaign, and
    // it goes into the notes and reports. Then the notes say what will run.
    const QStringList edits = parameterEdits(spec, m_loadedWorkloads, m_loadedColumns);
    if (describedByBase && !spec.description.isEmpty() &&
        (spec.sizes != m_base.sizes || spec.durationMs != m_base.durationMs || spec.warmupMs != m_base.warmupMs ||
         spec.repetitions != m_base.repetitions || spec.sampleIntervalMs != m_base.sampleIntervalMs ||
         !edits.isEmpty() || perWorkloadSizes(spec) != perWorkloadSizes(m_base))) {
        // The sizes as the user wrote them ("64,4K", "1:64K:*2"); the
        // preset's own description after what was edited.
        spec.description = describeEdited(spec, m_base.preset, m_sizes->text().trimmed(), edits, m_originalDescription);
    }
    return spec;
}

QJsonObject CampaignPage::campaignJson() const {
    return orchestrator::campaignToJson(campaign());
}

bool CampaignPage::isValid() const {
    QString error;
    campaign(&error);
    return error.isEmpty();
}

QString CampaignPage::hintText() const {
    return m_hint->text();
}

QString CampaignPage::estimateText() const {
    return m_estimate->text();
}

void CampaignPage::updateWidgets() {
    if (m_loading) return;
    // The baseline choices follow the column labels.
    {
        const QString current = m_baseline->currentText();
        const QSignalBlocker blocker(m_baseline);
        m_baseline->clear();
        m_baseline->addItem(tr("(first column)"));
        for (int row = 0; row < m_columns->rowCount(); ++row) {
            if (const QTableWidgetItem* label = m_columns->item(row, colLabel)) m_baseline->addItem(label->text());
        }
        const int index = m_baseline->findText(current);
        m_baseline->setCurrentIndex(index > 0 ? index : 0);
    }
    QString error;
    const orchestrator::CampaignSpec spec = campaign(&error);
    if (error.isEmpty() && m_description->text().trimmed() == m_base.description &&
        spec.description != m_base.description) {
        // The field shows what the notes will say (campaign() rewrote a
        // preset's description that no longer fits); later edits rewrite it again.
        m_base.description = spec.description;
        const QSignalBlocker blocker(m_description);
        m_description->setText(spec.description);
    }
    if (error.isEmpty()) {
        const auto cells = orchestrator::expandCells(spec);
        const qint64 ms = orchestrator::estimateCampaignMs(spec, static_cast<int>(cells.size()));
        // Workloads with sizes of their own count theirs ("1 + 3 sizes").
        QStringList sizeCounts;
        for (const orchestrator::WorkloadSpec& workload : spec.workloads)
            sizeCounts << QString::number(spec.sizesFor(workload).size());
        sizeCounts.removeDuplicates();
        QString matrix;
        if (sizeCounts.size() <= 1) {
            matrix = tr("%1 workloads x %2 columns x %3 sizes x %4 repetitions")
                         .arg(spec.workloads.size())
                         .arg(spec.columns.size())
                         .arg(sizeCounts.value(0, QStringLiteral("0")))
                         .arg(spec.repetitions);
        } else {
            QStringList perWorkload;
            for (const orchestrator::WorkloadSpec& workload : spec.workloads)
                perWorkload << QString::number(spec.sizesFor(workload).size());
            matrix = tr("%1 columns x (%2 sizes of the %3 workloads) x %4 repetitions")
                         .arg(spec.columns.size())
                         .arg(perWorkload.join(QStringLiteral(" + ")))
                         .arg(spec.workloads.size())
                         .arg(spec.repetitions);
        }
        m_estimate->setText(tr("%1 runs (%2), %3 each with %4 warm-up; estimated %5 on one agent pair")
                                .arg(cells.size())
                                .arg(matrix)
                                .arg(orchestrator::formatExactDurationMs(spec.durationMs))
                                .arg(orchestrator::formatExactDurationMs(spec.warmupMs))
                                .arg(orchestrator::formatDurationMs(ms)));
        m_hint->setStyleSheet(QString());
        const QString ready =
            m_path.isEmpty() ? tr("Ready to run.") : tr("Ready to run (%1).").arg(QFileInfo(m_path).fileName());
        m_hint->setText(m_connectedAgents > 0
                            ? ready + (m_connectedAgents == 1
                                           ? tr(" Ctrl+R runs it on the connected agent.")
                                           : tr(" Ctrl+R runs it on the %1 connected agents.").arg(m_connectedAgents))
                            : ready + tr(" No agent is connected yet: start the local lab (Ctrl+L) or connect "
                                         "agents on the Hosts page."));
    } else {
        m_estimate->setText(tr("Estimated duration: -"));
        m_hint->setStyleSheet(QStringLiteral("color: #b02222;"));
        m_hint->setText(error);
    }
    m_runButton->setEnabled(error.isEmpty());
}

void CampaignPage::openFile() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open campaign"), AppSettings::lastDirectory(),
                                                      tr("Campaign files (*.json);;All files (*)"));
    if (!path.isEmpty()) openPath(path);
}

bool CampaignPage::openPath(const QString& path) {
    const smcr::Result<orchestrator::CampaignSpec> spec = orchestrator::loadCampaignFile(path);
    if (!spec) {
        m_lab->reportError(tr("Cannot open %1: %2").arg(path, QString::fromStdString(spec.error().message)));
        return false;
    }
    setCampaign(spec.value());
    m_path = path;
    m_preset->setCurrentIndex(0);
    AppSettings::setLastCampaignFile(path);
    AppSettings::setLastDirectory(QFileInfo(path).absolutePath());
    updateWidgets();
    m_lab->reportInfo(tr("Opened %1").arg(path));
    return true;
}

void CampaignPage::saveFile() {
    if (m_path.isEmpty()) {
        saveFileAs();
    } else {
        savePath(m_path);
    }
}

void CampaignPage::saveFileAs() {
    const QString suggested =
        QDir(AppSettings::lastDirectory()).filePath(m_name->text().trimmed() + QStringLiteral(".json"));
    const QString path =
        QFileDialog::getSaveFileName(this, tr("Save campaign"), suggested, tr("Campaign files (*.json)"));
    if (!path.isEmpty()) savePath(path);
}

bool CampaignPage::savePath(const QString& path) {
    QString error;
    const orchestrator::CampaignSpec spec = campaign(&error);
    if (!error.isEmpty()) {
        m_lab->reportError(tr("Not saved: %1").arg(error));
        return false;
    }
    const smcr::Status status = orchestrator::saveCampaignFile(spec, path);
    if (!status) {
        m_lab->reportError(tr("Cannot save %1: %2").arg(path, QString::fromStdString(status.error().message)));
        return false;
    }
    m_path = path;
    AppSettings::setLastCampaignFile(path);
    AppSettings::setLastDirectory(QFileInfo(path).absolutePath());
    updateWidgets();
    m_lab->reportInfo(tr("Saved %1").arg(path));
    return true;
}

void CampaignPage::setConnectedAgentCount(int count) {
    if (count == m_connectedAgents) return;
    m_connectedAgents = count;
    updateWidgets();
}

void CampaignPage::requestRun() {
    QString error;
    campaign(&error);
    if (!error.isEmpty()) {
        m_lab->reportError(tr("The campaign cannot run: %1").arg(error));
        return;
    }
    emit runRequested();
}

}  // namespace smclab::gui
