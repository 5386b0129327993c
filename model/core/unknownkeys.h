// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QStringList>

namespace Headroom {

/// The warnings for `keys` a file holds that its reader does not know (kept out, never
/// refused: a newer Headroom may have written them), one line each: "unknown key "x" in FILE:
/// ignored". Bounded, so a file of thousands of stray keys cannot flood a terminal or the
/// window's status bar: at most 10 lines and a last "... and N more", each key cut to 80
/// characters.
inline QStringList unknownKeyWarnings(const QStringList &keys, const QString &file)
{
    constexpr qsizetype shown = 10, longest = 80;
    QStringList out;
    for (qsizetype i = 0; i < keys.size() && i < shown; ++i) {
        const QString &key = keys.at(i);
        const QString cut = key.size() > longest ? key.left(longest) + QStringLiteral("…") : key;
        out << QStringLiteral("unknown key \"%1\" in %2: ignored").arg(cut, file);
    }
    if (keys.size() > shown)
        out << QStringLiteral("... and %1 more unknown keys in %2: ignored").arg(keys.size() - shown).arg(file);
    return out;
}

} // namespace Headroom
