// SPDX-License-Identifier: GPL-3.0-or-later
#include "lengths/traceheader.h"
#include "core/inputerror.h"
#include "core/units.h"

#include <QString>
#include <algorithm>
#include <cctype>

namespace Headroom {

bool isTraceData(QByteArrayView cell)
{
    bool numeric = false;
    (void)cell.toDouble(&numeric);
    // A cell that starts as a number does is data too, even when it is malformed
    // ("100,0000", "1,000.5"): it is refused on its line, never skipped as a header.
    QByteArrayView last = cell;
    if (last.startsWith('"'))
        last = last.sliced(1);
    if (!last.isEmpty() && (std::isdigit(uchar(last.front())) || last.front() == '+' || last.front() == '-' || last.front() == '.'))
        numeric = true;
    // A count as the cells read it (8k): data, not a header to skip. Asked only of a
    // cell with a digit (parseCount reads none without one): the question, refused,
    // took half a million instructions, a tenth of the reading.
    const auto digit = [](char c) { return c >= '0' && c <= '9'; };
    if (!numeric && std::any_of(cell.begin(), cell.end(), digit)) {
        try {
            Units::parseCount(QString::fromUtf8(cell), QString(), 0);
            numeric = true;
        } catch (const InputError &) {
        }
    }
    return numeric;
}

} // namespace Headroom
