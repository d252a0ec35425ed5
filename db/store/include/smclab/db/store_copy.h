// `smclab db copy SRC DST`: campaigns from one store into another (a
// desktop's SQLite history into the team's PostgreSQL, and back).
//
// A campaign is the same in both stores when its name and creation time
// (UTC, to the millisecond) match; ids differ between stores and are never
// copied. Copying is idempotent: a campaign already there gets only the
// runs it lacks (done in the source, not done there; failed there only if
// not run at all), so copying twice adds nothing and copying after a
// --resume brings the new runs. Each run is committed on its own, so an
// interrupted copy is completed by running it again. Agents and hosts come
// along by address and name, so the runs keep their client and server.
#pragma once

#include <smcr/result.h>

#include "smclab/db/result_store.h"

namespace smclab::db {

struct CopyCounts {
    int campaignsCopied = 0;   // new in the destination
    int campaignsUpdated = 0;  // already there, runs added
    int campaignsPresent = 0;  // already there with every run: nothing to do
    int runsCopied = 0;
    qint64 samplesCopied = 0;
};

// Errc::invalidArgument when both are the same store.
smcr::Result<CopyCounts> copyCampaigns(ResultStore& source, ResultStore& destination);

}  // namespace smclab::db
