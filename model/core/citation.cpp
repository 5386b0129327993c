// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/citation.h"

#include <algorithm>

namespace Headroom::Citation {

namespace {

// The index of the first "; " or ". " outside parentheses in `s`, or -1.
qsizetype split(const QString &s)
{
    int depth = 0;
    for (qsizetype i = 0; i + 1 < s.size(); ++i) {
        const QChar c = s.at(i);
        if (c == QLatin1Char('('))
            ++depth;
        else if (c == QLatin1Char(')'))
            depth = std::max(0, depth - 1);
        else if (depth == 0 && (c == QLatin1Char(';') || c == QLatin1Char('.')) && s.at(i + 1) == QLatin1Char(' '))
            return i;
    }
    return -1;
}

} // namespace

QString publication(const QString &source)
{
    const qsizetype at = split(source);
    return (at < 0 ? source : source.left(at)).trimmed();
}

QString checks(const QString &source)
{
    const qsizetype at = split(source);
    return at < 0 ? QString() : source.mid(at + 2).trimmed();
}

} // namespace Headroom::Citation
