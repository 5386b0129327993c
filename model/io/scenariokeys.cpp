// SPDX-License-Identifier: GPL-3.0-or-later
#include "io/scenariokeys.h"
#include "io/scenariofile.h"

#include <QJsonArray>

namespace Headroom {

namespace {

// Every key a version-1 file can hold: what ScenarioFile::toJson writes for a scenario with
// every part present (a distribution, a draft model, LoRA slots, a layer group in each
// model). The reader reads no key the writer does not write, so the writer is the one list.
const QJsonObject &knownKeys()
{
    static const QJsonObject known = [] {
        Scenario s;
        s.model.groups = {LayerGroup{}};
        s.distribution = LengthDistribution::fixed(1);
        s.speculative.draftModel = s.model;
        s.lora.maxLoras = 1;
        return ScenarioFile::toJson(s, QString());
    }();
    return known;
}

// The keys of `file` that `known` lacks, as dotted paths from `prefix` ("inputs.contxt"),
// looking into objects and lists of objects (a model's "groups") the known side also holds.
void collectUnknown(const QJsonObject &file, const QJsonObject &known, const QString &prefix, QStringList &out)
{
    for (auto it = file.begin(); it != file.end(); ++it) {
        const QString path = prefix + it.key();
        if (!known.contains(it.key())) {
            out << path;
            continue;
        }
        const QJsonValue k = known.value(it.key());
        if (it->isObject() && k.isObject()) {
            collectUnknown(it->toObject(), k.toObject(), path + QLatin1Char('.'), out);
        } else if (it->isArray() && k.isArray() && !k.toArray().isEmpty() && k.toArray().first().isObject()) {
            const QJsonArray items = it->toArray();
            for (qsizetype i = 0; i < items.size(); ++i)
                if (items.at(i).isObject())
                    collectUnknown(items.at(i).toObject(), k.toArray().first().toObject(), QStringLiteral("%1[%2].").arg(path).arg(i), out);
        }
    }
}

} // namespace

QStringList ScenarioKeys::unknown(const QJsonObject &file)
{
    QStringList out;
    collectUnknown(file, knownKeys(), QString(), out);
    return out;
}

} // namespace Headroom
