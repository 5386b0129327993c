// SPDX-License-Identifier: GPL-3.0-or-later
#include "inputs/sidepools.h"
#include "core/inputerror.h"

namespace Headroom {

QStringList LoraSlots::allModules()
{
    return {QStringLiteral("q"), QStringLiteral("k"), QStringLiteral("v"), QStringLiteral("o"),
            QStringLiteral("gate"), QStringLiteral("up"), QStringLiteral("down")};
}

QStringList LoraSlots::parseModules(const QString &text, const QString &field)
{
    const QStringList all = allModules();
    if (text.trimmed().compare(QLatin1String("all"), Qt::CaseInsensitive) == 0)
        return all;
    QStringList seen;
    for (QString word : text.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        word = word.trimmed().toLower();
        // PEFT's target_modules spell them q_proj ... down_proj.
        if (word.endsWith(QLatin1String("_proj")))
            word.chop(5);
        if (!all.contains(word))
            throw InputError(field, QStringLiteral("unknown module \"%1\"; use a comma list of %2, or all")
                                        .arg(word, all.join(QStringLiteral(", "))));
        if (!seen.contains(word))
            seen << word;
    }
    if (seen.isEmpty())
        throw InputError(field, QStringLiteral("names no module; use a comma list of %1, or all").arg(all.join(QStringLiteral(", "))));
    QStringList ordered;
    for (const QString &m : all)
        if (seen.contains(m))
            ordered << m;
    return ordered;
}

} // namespace Headroom
