// SPDX-License-Identifier: GPL-3.0-or-later
#include "commands/presetlookup.h"

#include "core/inputerror.h"
#include "io/configimporter.h"

namespace Headroom {

const PresetStore *openStore(QTextStream &err)
{
    static PresetStore *store = nullptr;
    static bool tried = false;
    if (!tried) {
        tried = true;
        auto *s = new PresetStore(PresetStore::defaultPath());
        QString error;
        if (s->open(&error)) {
            store = s;
            if (!s->warning().isEmpty())
                err << "warning: " << s->warning() << '\n';
        } else {
            err << "warning: " << error << (error.endsWith(QLatin1Char('.')) ? " " : ". ") << "Using the built-in presets only.\n";
            delete s;
        }
    }
    return store;
}

PresetRecord findPreset(const QString &id, const QString &kind, const QString &field, QTextStream &err)
{
    PresetRecord r;
    const PresetStore *store = openStore(err);
    const QVector<PresetRecord> all = store ? store->list(kind) : PresetStore::builtInPresets();
    if (store) {
        r = store->find(id);
    } else {
        for (const PresetRecord &b : all)
            if (b.id == id)
                r = b;
    }
    if (r.id.isEmpty() || r.kind != kind) {
        // The ids that hold what was typed ("h100": h100-sxm-80gb, h100-pcie-80gb), at most five.
        QStringList near;
        for (const PresetRecord &p : all)
            if (p.kind == kind && !id.trimmed().isEmpty() && p.id.contains(id.trimmed(), Qt::CaseInsensitive) && near.size() < 5)
                near << p.id;
        throw InputError(field, QStringLiteral("unknown %1 preset \"%2\"; %3")
                                    .arg(kind, id, near.isEmpty() ? QStringLiteral("`headroom presets list` shows the ids")
                                                                  : QStringLiteral("did you mean %1? (`headroom presets list` shows every id)")
                                                                        .arg(near.join(QStringLiteral(" or ")))));
    }
    return r;
}

namespace {
// Every preset of one kind that reads (the store's, else the built-ins).
template <typename T>
QVector<T> allPresets(const QString &kind, T (*read)(const QJsonObject &), QTextStream &err)
{
    QVector<T> out;
    const PresetStore *store = openStore(err);
    for (const PresetRecord &r : store ? store->list(kind) : PresetStore::builtInPresets()) {
        if (r.kind != kind)
            continue;
        try {
            out << read(r.json);
        } catch (const InputError &) {
            // A damaged user preset is left out of the options, not fatal.
        }
    }
    return out;
}
} // namespace

QVector<ModelShape> allModels(QTextStream &err)
{
    return allPresets<ModelShape>(QStringLiteral("model"), &ConfigImporter::fromPreset, err);
}

QVector<GpuSpec> allGpus(QTextStream &err)
{
    return allPresets<GpuSpec>(QStringLiteral("gpu"), [](const QJsonObject &o) { return GpuSpec::fromPreset(o); }, err);
}

namespace {
// The preset `id` of `kind` read by `read`; a stored row that no longer reads is named as the
// preset it is, with the commands that mend it (an attacker's damaged row said only
// "memory_bytes: must be a positive whole number of bytes", naming neither preset nor store).
template <typename T, typename Read>
T readPreset(const QString &id, const QString &kind, const QString &field, Read read, QTextStream &err)
{
    const PresetRecord r = findPreset(id, kind, field, err);
    try {
        return read(r.json);
    } catch (const InputError &e) {
        throw InputError(field, QStringLiteral("the %1 preset \"%2\" is damaged (%3): fix it with `headroom presets edit %2`, "
                                                                     "or remove it with `headroom presets remove %2`")
                                                          .arg(kind, id, e.text()));
    }
}
} // namespace

ModelShape presetModel(const QString &id, QTextStream &err, const QString &field)
{
    return readPreset<ModelShape>(id, QStringLiteral("model"), field, [](const QJsonObject &o) { return ConfigImporter::fromPreset(o); }, err);
}

GpuSpec presetGpu(const QString &id, QTextStream &err, const QString &field)
{
    return readPreset<GpuSpec>(id, QStringLiteral("gpu"), field, [](const QJsonObject &o) { return GpuSpec::fromPreset(o); }, err);
}

} // namespace Headroom
