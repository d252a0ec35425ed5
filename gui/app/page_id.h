// The pages of the main window, in the order of the navigation list.
#pragma once

namespace smclab::gui {

enum class PageId { hosts = 0, campaign, run, results, exporter, count };

}  // namespace smclab::gui
