// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArrayView>

namespace Headroom {

/// Whether a trace's first line, whose last cell is `cell`, is data rather than a header: a
/// header names its columns with words; a cell that reads as a number (toDouble), that starts
/// as a number does (a digit, a sign or a point, after an opening quote: data even when
/// malformed, "100,0000" or "1,000.5", refused on its line, never skipped as a header) or that
/// reads as a count as the cells read it (Units::parseCount: 8k) is data.
bool isTraceData(QByteArrayView cell);

} // namespace Headroom
