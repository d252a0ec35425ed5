#include "cell_matrix.h"

#include <algorithm>

namespace smclab::orchestrator {

QString Cell::key(const CampaignSpec& spec) const {
    return QStringLiteral("%1|%2|%3|%4")
        .arg(spec.workloads.at(static_cast<size_t>(workloadIndex)).label,
             spec.columns.at(static_cast<size_t>(columnIndex)).label)
        .arg(sizeBytes)
        .arg(repetition);
}

std::vector<Cell> expandCells(const CampaignSpec& spec) {
    std::vector<Cell> cells;
    const size_t columns = spec.columns.size();
    for (int rep = 0; rep < spec.repetitions; ++rep) {
        for (size_t w = 0; w < spec.workloads.size(); ++w) {
            for (uint64_t size : spec.sizesFor(spec.workloads[w])) {
                for (size_t slot = 0; slot < columns; ++slot) {
                    Cell cell;
                    cell.index = static_cast<int>(cells.size());
                    cell.workloadIndex = static_cast<int>(w);
                    cell.columnIndex = static_cast<int>(roundColumn(slot, rep, columns));
                    cell.sizeBytes = size;
                    cell.repetition = rep;
                    cells.push_back(cell);
                }
            }
        }
    }
    return cells;
}

size_t roundColumn(size_t slot, int round, size_t columns) {
    if (columns == 0) return 0;
    return (slot + static_cast<size_t>(round)) % columns;
}

int64_t estimateCellMs(const CampaignSpec& spec, int64_t overheadMs) {
    return int64_t(spec.durationMs) + spec.warmupMs + std::max<int64_t>(overheadMs, 0);
}

int64_t estimateCampaignMs(const CampaignSpec& spec, int cellCount, int64_t overheadMs) {
    const int64_t pairs = std::max<int64_t>(1, static_cast<int64_t>(spec.agents.size()));
    const int64_t rounds = (cellCount + pairs - 1) / pairs;
    return rounds * estimateCellMs(spec, overheadMs);
}

QString formatDurationMs(int64_t ms) {
    const int64_t totalSeconds = std::max<int64_t>(0, (ms + 500) / 1000);
    const int64_t hours = totalSeconds / 3600;
    const int64_t minutes = (totalSeconds / 60) % 60;
    const int64_t seconds = totalSeconds % 60;
    if (hours > 0) return QStringLiteral("%1h %2m").arg(hours).arg(minutes, 2, 10, QLatin1Char('0'));
    if (minutes > 0) return QStringLiteral("%1m %2s").arg(minutes).arg(seconds, 2, 10, QLatin1Char('0'));
    return QStringLiteral("%1s").arg(seconds);
}

QString formatExactDurationMs(int64_t ms) {
    if (ms == 0) return QStringLiteral("0 s");
    if (ms > 0 && ms < 1000) return QStringLiteral("%1 ms").arg(ms);
    if (ms % 1000 == 0) return QStringLiteral("%1 s").arg(ms / 1000);
    // 1500 -> "1.5 s", 2250 -> "2.25 s": three decimals at most, trailing zeros dropped.
    QString text = QString::number(static_cast<double>(ms) / 1000.0, 'f', 3);
    while (text.endsWith(QLatin1Char('0'))) text.chop(1);
    return text + QStringLiteral(" s");
}

}  // namespace smclab::orchestrator
