// Text and attribute escaping shared by the HTML and SVG writers, which keep
// their output well-formed XML (only the five predefined entities).
#pragma once

#include <QString>

namespace smclab::report {

inline QString xmlEscape(const QString& text) {
    return text.toHtmlEscaped();
}

}  // namespace smclab::report
