#include "app/lab_context.h"

namespace smclab::gui {

LabContext::LabContext(QObject* parent) : QObject(parent) {}

}  // namespace smclab::gui
