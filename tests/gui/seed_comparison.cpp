#include "seed_comparison.h"

namespace smclab::gui::testing {

Comparison seedComparison() {
    QList<qint64> sizes;
    for (qint64 s = 1; s <= 65536; s *= 2) sizes.append(s);
    const QStringList columns = {QStringLiteral("Origin SMC"), QStringLiteral("TCP"),
                                 QStringLiteral("SMC with patches")};
    ComparisonSection bw;
    bw.metric = Metric::bandwidth;
    bw.title = QStringLiteral("Bandwidth");
    bw.unit = QStringLiteral("MB/s");
    bw.sizesBytes = sizes;
    bw.columns = columns;
    bw.values = {{0.578, 1.159, 2.283, 4.668, 9.147, 18.369, 36.562, 72.961, 144.705, 288.873, 574.180, 1095.192,
                  2066.157, 3717.198, 4742.221, 5349.550, 5162.919},
                 {2.392, 4.780, 10.266, 19.040, 38.904, 79.587, 148.668, 274.913, 512.059, 884.977, 1337.736, 1865.952,
                  2380.337, 2733.073, 2958.693, 3061.285, 3731.408},
                 {2.561, 5.162, 10.122, 20.521, 40.823, 80.535, 158.170, 316.217, 626.019, 1221.596, 2203.156, 3036.448,
                  3834.271, 4904.910, 5220.272, 5321.865, 5245.021}};
    ComparisonSection lat;
    lat.metric = Metric::latency;
    lat.title = QStringLiteral("Latency");
    lat.unit = QStringLiteral("us");
    lat.lowerIsBetter = true;
    lat.sizesBytes = sizes;
    lat.columns = columns;
    lat.values = {{10.540, 10.996, 10.229, 10.203, 10.530, 10.241, 10.693, 10.597, 10.409, 11.088, 11.240, 11.485,
                   12.077, 13.683, 16.470, 22.540, 34.192},
                  {11.938, 11.992, 11.687, 11.653, 11.313, 11.586, 11.652, 11.579, 11.957, 12.505, 12.255, 16.970,
                   13.948, 16.693, 23.615, 40.966, 73.003},
                  {10.356, 10.073, 9.996, 10.063, 10.013, 10.081, 9.986, 10.262, 10.148, 10.206, 10.631, 10.981, 11.847,
                   13.336, 16.519, 22.452, 33.916}};
    Comparison comparison;
    comparison.title = QStringLiteral("seed 000: datapath");
    comparison.sections = {bw, lat};
    return comparison;
}

}  // namespace smclab::gui::testing
