#include "pages/export_page.h"

#include <QApplication>
#include <QClipboard>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QPdfWriter>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSaveFile>
#include <QVBoxLayout>

#include "app/app_settings.h"
#include "app/lab_context.h"
#include "smclab/report/format_text.h"
#include "smclab/report/formats.h"
#include "widgets/comparison_plot.h"
#include "widgets/comparison_view.h"

namespace smclab::gui {

namespace {
// Exported plots have a fixed size, whatever the window's size.
constexpr int kPlotWidthPx = 1000;
constexpr int kPlotHeightPx = 520;
}  // namespace

ExportPage::ExportPage(LabContext* lab, QWidget* parent) : QWidget(parent), m_lab(lab) {
    auto* layout = new QVBoxLayout(this);
    m_title = new QLabel(this);
    QFont titleFont = m_title->font();
    titleFont.setBold(true);
    m_title->setFont(titleFont);
    layout->addWidget(m_title);

    auto* buttons = new QHBoxLayout;
    const auto addButton = [this, buttons](const QString& text, const QString& tip, auto&& slot) {
        auto* button = new QPushButton(text, this);
        button->setToolTip(tip);
        connect(button, &QPushButton::clicked, this, slot);
        buttons->addWidget(button);
        m_buttons.append(button);
    };
    addButton(tr("&Copy table text"), tr("The cover-letter layout, ready to paste into a patch cover letter"),
              [this] { copyToClipboard(); });
    addButton(tr("Save CS&V..."), tr("One line per table, size and column, full precision"), [this] {
        const QString path = askPath(tr("Save CSV"), QStringLiteral("csv"), tr("CSV files (*.csv)"));
        if (!path.isEmpty()) saveCsv(path);
    });
    addButton(tr("Save P&NG..."), tr("The plots stacked in one image"), [this] {
        const QString path = askPath(tr("Save PNG"), QStringLiteral("png"), tr("PNG images (*.png)"));
        if (!path.isEmpty()) savePng(path);
    });
    addButton(tr("Save &PDF..."), tr("One vector page per plot"), [this] {
        const QString path = askPath(tr("Save PDF"), QStringLiteral("pdf"), tr("PDF files (*.pdf)"));
        if (!path.isEmpty()) savePdf(path);
    });
    addButton(tr("Save &HTML report..."), tr("Tables, plots, counters and provenance in one file"), [this] {
        const QString path = askPath(tr("Save HTML report"), QStringLiteral("html"), tr("HTML files (*.html)"));
        if (!path.isEmpty()) saveHtml(path);
    });
    buttons->addStretch();
    layout->addLayout(buttons);

    m_preview = new QPlainTextEdit(this);
    m_preview->setReadOnly(true);
    m_preview->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_preview->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    layout->addWidget(m_preview, 1);
    m_hint = new QLabel(this);
    m_hint->setWordWrap(true);
    layout->addWidget(m_hint);
    updateWidgets();
}

void ExportPage::setSource(ComparisonView* view) {
    if (m_view == view) {
        updateWidgets();
        return;
    }
    if (m_view) disconnect(m_view, nullptr, this, nullptr);
    m_view = view;
    if (m_view) connect(m_view, &ComparisonView::baselineChanged, this, [this] { updateWidgets(); });
    updateWidgets();
}

report::ReportDocument ExportPage::document() const {
    if (!m_view) return {};
    const report::ReportDocument& stored = m_view->comparison().document;
    const QString baseline = m_view->baselineLabel();
    if (baseline.isEmpty()) return stored;
    const auto reordered = report::withBaseline(stored, baseline);
    return reordered ? reordered.value() : stored;
}

QString ExportPage::coverLetterText() const {
    return report::formatTextWithConfidence(document().tables);
}

void ExportPage::copyToClipboard() {
    const QString text = coverLetterText();
    if (text.isEmpty()) {
        m_lab->reportError(tr("Nothing to copy: select a campaign on the Results page first."));
        return;
    }
    QApplication::clipboard()->setText(text);
    m_lab->reportInfo(tr("Copied %1 table(s) in cover-letter layout").arg(document().tables.size()));
}

QString ExportPage::askPath(const QString& title, const QString& suffix, const QString& filter) {
    const QString name =
        m_view && !m_view->comparison().title.isEmpty() ? m_view->comparison().title : tr("comparison");
    QString safe = name;
    safe.replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9_.-]+")), QStringLiteral("-"));
    const QString suggested = QDir(AppSettings::lastDirectory()).filePath(safe + QLatin1Char('.') + suffix);
    const QString path = QFileDialog::getSaveFileName(this, title, suggested, filter);
    if (!path.isEmpty()) AppSettings::setLastDirectory(QFileInfo(path).absolutePath());
    return path;
}

bool ExportPage::writeText(const QString& path, const QString& text) {
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(text.toUtf8()) < 0 || !file.commit()) {
        m_lab->reportError(tr("Cannot write %1: %2").arg(path, file.errorString()));
        return false;
    }
    m_lab->reportInfo(tr("Saved %1").arg(path));
    return true;
}

bool ExportPage::saveCsv(const QString& path) {
    return writeText(path, report::formatCsv(document().tables));
}

bool ExportPage::saveHtml(const QString& path) {
    return writeText(path, report::formatHtml(document()));
}

bool ExportPage::savePng(const QString& path) {
    const int count = m_view ? m_view->paneCount() : 0;
    if (count == 0) {
        m_lab->reportError(tr("Nothing to save: no plots."));
        return false;
    }
    QImage image(kPlotWidthPx, kPlotHeightPx * count, QImage::Format_ARGB32);
    image.fill(Qt::white);
    QPainter painter(&image);
    for (int i = 0; i < count; ++i) {
        const QPixmap pixmap = m_view->plotAt(i)->toPixmap(kPlotWidthPx, kPlotHeightPx);
        painter.drawPixmap(0, i * kPlotHeightPx, pixmap);
    }
    painter.end();
    if (!image.save(path, "PNG")) {
        m_lab->reportError(tr("Cannot write %1").arg(path));
        return false;
    }
    m_lab->reportInfo(tr("Saved %1").arg(path));
    return true;
}

bool ExportPage::savePdf(const QString& path) {
    const int count = m_view ? m_view->paneCount() : 0;
    if (count == 0) {
        m_lab->reportError(tr("Nothing to save: no plots."));
        return false;
    }
    QPdfWriter writer(path);
    writer.setTitle(m_view->comparison().title);
    writer.setCreator(QStringLiteral("smclab-gui"));
    writer.setPageSize(QPageSize(QSizeF(kPlotWidthPx, kPlotHeightPx), QPageSize::Point));
    writer.setPageMargins(QMarginsF(0, 0, 0, 0));
    writer.setResolution(72);  // one point per pixel: the plot's layout is kept as on screen
    QCPPainter painter;
    if (!painter.begin(&writer)) {
        m_lab->reportError(tr("Cannot write %1").arg(path));
        return false;
    }
    painter.setMode(QCPPainter::pmVectorized);
    painter.setMode(QCPPainter::pmNoCaching);
    for (int i = 0; i < count; ++i) {
        if (i > 0) writer.newPage();
        m_view->plotAt(i)->toPainter(&painter, kPlotWidthPx, kPlotHeightPx);
    }
    painter.end();
    m_lab->reportInfo(tr("Saved %1").arg(path));
    return true;
}

void ExportPage::updateWidgets() {
    const bool empty = !m_view || m_view->comparison().document.tables.isEmpty();
    m_title->setText(empty ? tr("Nothing to export yet")
                           : tr("%1 (baseline: %2)").arg(m_view->comparison().title, m_view->baselineLabel()));
    m_preview->setPlainText(empty ? QString() : coverLetterText());
    for (QPushButton* button : m_buttons) button->setEnabled(!empty);
    m_hint->setText(empty ? tr("Select a campaign on the Results page (Alt+4); its tables appear here.")
                          : tr("Percentages are (x / baseline - 1) * 100 from the stored, unrounded values; "
                               "change the baseline on the Results page."));
}

}  // namespace smclab::gui
