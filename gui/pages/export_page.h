// Export of the comparison shown on the Results page: the tables in the
// cover-letter text layout (to the clipboard or a preview), CSV, the plots as
// PNG or PDF, and the self-contained HTML report. Text, CSV and HTML come from
// the report formatters, so they match `smclab report` byte for byte.
#pragma once

#include <QPointer>
#include <QWidget>

#include "smclab/report/report_document.h"

class QLabel;
class QPlainTextEdit;
class QPushButton;

namespace smclab::gui {

class LabContext;
class ComparisonView;

class ExportPage : public QWidget {
    Q_OBJECT
public:
    explicit ExportPage(LabContext* lab, QWidget* parent = nullptr);

    void setSource(ComparisonView* view);
    // The report with the view's baseline column first.
    report::ReportDocument document() const;
    QString coverLetterText() const;

    void copyToClipboard();
    bool saveCsv(const QString& path);
    bool savePng(const QString& path);
    bool savePdf(const QString& path);
    bool saveHtml(const QString& path);

private:
    QString askPath(const QString& title, const QString& suffix, const QString& filter);
    bool writeText(const QString& path, const QString& text);
    void updateWidgets();

    LabContext* m_lab = nullptr;
    QPointer<ComparisonView> m_view;
    QLabel* m_title = nullptr;
    QPlainTextEdit* m_preview = nullptr;
    QLabel* m_hint = nullptr;
    QList<QPushButton*> m_buttons;
};

}  // namespace smclab::gui
