// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "engines/logreading.h"

#include <QString>
#include <QStringList>
#include <QStringView>
#include <QVector>
#include <vector>

namespace Headroom {

/// Which log patterns a line may match, found without running their expressions.
/// Most lines of a long log (requests, metrics) match no pattern: one pass over the line,
/// folded to lower case, looks up each pair of characters among the first two of every
/// pattern's leading text (LogParse::leadingText), and only a pattern whose text the line
/// holds meets its expression (43 expressions on every line of a 66 MB log took 23 s). A
/// pattern without two leading ASCII characters is always tried.
class PatternIndex
{
public:
    explicit PatternIndex(const QVector<LogPattern> &patterns);

    /// For each pattern, in order: true when `line` may match it (its leading text occurs
    /// in the line, without case, or it has no two leading ASCII characters). The vector
    /// is reused from call to call.
    const std::vector<bool> &candidates(QStringView line);

private:
    QStringList m_leads;                      ///< each pattern's leading text, lower case
    std::vector<std::vector<int>> m_byPair;   ///< the patterns of each pair entry; entry 0: none
    std::vector<quint16> m_pairEntry;         ///< 128 x 128 ASCII pairs -> entry in m_byPair
    QString m_folded;                         ///< the line in lower case (reused)
    std::vector<bool> m_candidate;
};

} // namespace Headroom
