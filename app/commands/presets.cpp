// SPDX-License-Identifier: GPL-3.0-or-later
// `headroom presets list|add|edit|remove|export|import`: the user's presets.
#include "commands/commands.h"

#include "commands/options.h"
#include "commands/planflags.h"
#include "commands/presetflags.h"
#include "commands/presetlookup.h"
#include "core/inputerror.h"
#include "core/jsonnumbers.h"
#include "core/outputtarget.h"
#include "io/configimporter.h"
#include "presetbundle.h"
#include "presetstore.h"

#include <QJsonArray>
#include <memory>

namespace Headroom {

namespace {

/// `presets list`: every preset, models first then GPUs, by id, with its memory and price or
/// parameter count (--json: id, kind, name, source, built_in); the store's problems as warnings.
int runPresetsList(const QCommandLineParser &p, QTextStream &out, QTextStream &err)
{
    const PresetStore *store = openStore(err);
    QVector<PresetRecord> all = store ? store->list() : PresetStore::builtInPresets();
    if (store)
        for (const QString &problem : store->problems())
            err << "warning: " << problem << '\n';
    std::sort(all.begin(), all.end(), [](const PresetRecord &a, const PresetRecord &b) {
        return a.kind != b.kind ? a.kind > b.kind : a.id < b.id; // models first, then GPUs, by id
    });
    if (p.isSet(QStringLiteral("json"))) {
        QJsonArray a;
        for (const PresetRecord &r : all)
            a.append(QJsonObject{{QStringLiteral("id"), r.id},
                                 {QStringLiteral("kind"), r.kind},
                                 {QStringLiteral("name"), r.name},
                                 {QStringLiteral("source"), r.source},
                                 {QStringLiteral("built_in"), r.builtIn}});
        out << QString::fromUtf8(JsonNumbers::toJson(a));
        return 0;
    }
    for (const PresetRecord &r : all) {
        QString detail;
        if (r.kind == QLatin1String("gpu")) {
            const QJsonValue price = r.json.value(QStringLiteral("price_usd_per_hour"));
            detail = QStringLiteral("%1, %2").arg(Units::formatBytes(r.json.value(QStringLiteral("memory_bytes")).toInteger(), UnitSystem::Decimal),
                                                 price.isDouble() ? Units::formatUsd(price.toDouble()) + QStringLiteral("/GPU-hour")
                                                                  : QStringLiteral("set a price"));
        } else if (r.json.contains(QStringLiteral("total_params"))) {
            detail = QStringLiteral("%1 parameters").arg(Units::formatCount(r.json.value(QStringLiteral("total_params")).toInteger()));
        } else {
            // No published count (a preset from a config.json): the one a plan uses, counted from its shapes.
            try {
                const qint64 derived = ConfigImporter::fromPreset(r.json).totalParams;
                detail = derived > 0 ? QStringLiteral("%1 parameters (counted from its config)").arg(Units::formatCount(derived))
                                     : QStringLiteral("parameters unknown: give --params");
            } catch (const InputError &e) {
                detail = e.text();
            }
        }
        out << r.kind.leftJustified(6) << r.id.leftJustified(30) << r.name.leftJustified(28) << detail
            << (r.builtIn ? "" : "  (yours)") << '\n';
    }
    return 0;
}

/// The store the presets subcommands write to; nullptr (with the error printed) when it cannot be opened.
std::unique_ptr<PresetStore> writableStore(QTextStream &err)
{
    auto store = std::make_unique<PresetStore>(PresetStore::defaultPath());
    QString error;
    if (!store->open(&error)) {
        err << "error: " << error << '\n';
        return nullptr;
    }
    if (!store->warning().isEmpty())
        err << "warning: " << store->warning() << '\n';
    return store;
}

/// Why built-in preset `id` of `kind` cannot be `verb` ("edited", "removed"), with the command
/// that makes the user's own copy.
QString builtInRefusal(const QString &id, const QString &kind, const char *verb)
{
    return QStringLiteral("\"%1\" is a built-in preset, which cannot be %2 (built-ins are refreshed with each release); "
                          "`headroom presets add %3 my-%1 --from %1` makes your own copy")
        .arg(id, QLatin1String(verb), kind);
}

/// `presets add gpu|model ID`: a new preset of the user's from the field flags (or --from a copy).
/// Exit code 2 with the usage on a wrong count of arguments; throws InputError naming the flag.
int runPresetsAdd(const QCommandLineParser &p, QTextStream &out, QTextStream &err)
{
    const QStringList pos = p.positionalArguments();
    if (pos.size() != 4 || (pos.at(2) != QLatin1String("gpu") && pos.at(2) != QLatin1String("model"))) {
        err << "usage: headroom presets add gpu ID --name TEXT --memory SIZE [--bandwidth SIZE/s --tflops F --price USD ...]\n"
               "       headroom presets add model ID --config config.json [--name TEXT --params N ...]\n"
               "       headroom presets add gpu|model ID --from EXISTING-ID [field flags]\n";
        return 2;
    }
    const QString kind = pos.at(2), id = pos.at(3);
    auto store = writableStore(err);
    if (!store)
        return 1;
    QJsonObject preset;
    if (isSet(p, "from")) {
        const PresetRecord from = store->find(value(p, "from"));
        if (from.id.isEmpty() || from.kind != kind)
            throw InputError(QStringLiteral("--from"), QStringLiteral("unknown %1 preset \"%2\"; `headroom presets list` shows the ids").arg(kind, value(p, "from")));
        preset = from.json;
    } else if (kind == QLatin1String("model") && !isSet(p, "config")) {
        throw InputError(QStringLiteral("--config"), QStringLiteral("give the model's config.json (or --from an existing preset)"));
    } else if (kind == QLatin1String("gpu") && !isSet(p, "memory")) {
        throw InputError(QStringLiteral("--memory"), QStringLiteral("give the memory per card, e.g. --memory 81559MiB (or --from an existing preset)"));
    }
    preset.insert(QStringLiteral("id"), id);
    preset.insert(QStringLiteral("kind"), kind);
    applyPresetFlags(p, kind, preset);
    if (!preset.contains(QStringLiteral("name")))
        preset.insert(QStringLiteral("name"), id);
    validateFromFlags(preset);
    const PresetRecord existing = store->find(id);
    if (!existing.id.isEmpty() || PresetStore::isBuiltInId(id))
        throw InputError(QStringLiteral("ID"), existing.builtIn || existing.id.isEmpty()
                                                   ? QStringLiteral("\"%1\" is a built-in preset; choose another id").arg(id)
                                                   : QStringLiteral("\"%1\" is already one of your presets; `headroom presets edit %1` changes it").arg(id));
    QString error;
    if (!store->saveUserPreset(preset, &error)) {
        err << "error: " << error << '\n';
        return 1;
    }
    out << "added " << kind << " preset " << id << " (" << preset.value(QStringLiteral("name")).toString() << ")\n";
    return 0;
}

/// `presets edit ID`: changes the user's preset by the field flags and --clear FIELD (repeatable).
/// Exit code 2 with the usage, or when nothing would change; throws InputError naming the flag.
int runPresetsEdit(const QCommandLineParser &p, QTextStream &out, QTextStream &err)
{
    const QStringList pos = p.positionalArguments();
    if (pos.size() != 3) {
        err << "usage: headroom presets edit ID [field flags, e.g. --price 1.80 --price-date 2026-12-01] [--clear FIELD]\n";
        return 2;
    }
    auto store = writableStore(err);
    if (!store)
        return 1;
    const PresetRecord r = store->find(pos.at(2));
    if (r.id.isEmpty())
        throw InputError(QStringLiteral("ID"), QStringLiteral("there is no preset \"%1\"; `headroom presets list` shows the ids").arg(pos.at(2)));
    if (r.builtIn)
        throw InputError(QStringLiteral("ID"), builtInRefusal(r.id, r.kind, "edited"));
    QJsonObject preset = r.json;
    bool changed = applyPresetFlags(p, r.kind, preset);
    for (const QString &name : p.values(QStringLiteral("clear"))) {
        const QString field = presetFieldNamed(name);
        static const QStringList required = {QStringLiteral("id"), QStringLiteral("kind"), QStringLiteral("name"),
                                             QStringLiteral("memory_bytes"), QStringLiteral("config")};
        if (required.contains(field))
            throw InputError(QStringLiteral("--clear"), QStringLiteral("%1 is required and cannot be cleared").arg(name));
        if (!preset.contains(field))
            throw InputError(QStringLiteral("--clear"), QStringLiteral("preset %1 has no field \"%2\"").arg(r.id, name));
        if (field == QLatin1String("price_usd_per_hour"))
            preset.insert(field, QJsonValue::Null); // as the built-ins say "set a price"
        else
            preset.remove(field);
        changed = true;
    }
    if (!changed) {
        err << "error: nothing to change: give a field flag (see `headroom --help`) or --clear FIELD\n";
        return 2;
    }
    validateFromFlags(preset);
    QString error;
    if (!store->saveUserPreset(preset, &error)) {
        err << "error: " << error << '\n';
        return 1;
    }
    out << "edited " << r.kind << " preset " << r.id << '\n';
    return 0;
}

/// `presets remove ID...`: removes the user's presets, every id checked before any is removed.
int runPresetsRemove(const QCommandLineParser &p, QTextStream &out, QTextStream &err)
{
    const QStringList pos = p.positionalArguments();
    if (pos.size() < 3) {
        err << "usage: headroom presets remove ID [ID...]\n";
        return 2;
    }
    auto store = writableStore(err);
    if (!store)
        return 1;
    // Every id is checked before any is removed.
    for (const QString &id : pos.mid(2)) {
        const PresetRecord r = store->find(id);
        if (r.id.isEmpty())
            throw InputError(QStringLiteral("ID"), QStringLiteral("there is no preset \"%1\"; `headroom presets list` shows the ids").arg(id));
        if (r.builtIn)
            throw InputError(QStringLiteral("ID"), builtInRefusal(r.id, r.kind, "removed"));
    }
    for (const QString &id : pos.mid(2)) {
        QString error;
        if (!store->removeUserPreset(id, &error)) {
            err << "error: " << error << '\n';
            return 1;
        }
        out << "removed preset " << id << '\n';
    }
    return 0;
}

/// `presets export FILE|- [ID...]`: the user's presets (default: all of them) as one JSON bundle.
int runPresetsExport(const QCommandLineParser &p, QTextStream &out, QTextStream &err)
{
    const QStringList pos = p.positionalArguments();
    if (pos.size() < 3) {
        err << "usage: headroom presets export FILE.json [ID...]   (default: all of your presets)\n";
        return 2;
    }
    auto store = writableStore(err);
    if (!store)
        return 1;
    QVector<PresetRecord> chosen;
    if (pos.size() == 3) {
        for (const PresetRecord &r : store->list())
            if (!r.builtIn)
                chosen << r;
        if (chosen.isEmpty())
            throw InputError(QStringLiteral("ID"), QStringLiteral("you have no presets of your own to export; `headroom presets add` makes one"));
    } else {
        QStringList ids = pos.mid(3);
        ids.removeDuplicates(); // an id named twice is exported once: import refuses a bundle that repeats one
        for (const QString &id : ids) {
            const PresetRecord r = store->find(id);
            if (r.id.isEmpty())
                throw InputError(QStringLiteral("ID"), QStringLiteral("there is no preset \"%1\"").arg(id));
            if (r.builtIn)
                throw InputError(QStringLiteral("ID"), QStringLiteral("\"%1\" is a built-in preset, which every Headroom has; export your own").arg(id));
            chosen << r;
        }
    }
    for (const QString &problem : store->problems())
        err << "warning: " << problem << '\n';
    QString error;
    if (!PresetBundle::save(pos.at(2), chosen, &error, {{store->path(), QStringLiteral("the preset store")}}))
        throw InputError(QStringLiteral("presets export"), error);
    // With "-" the bundle is the whole of standard output; the count goes to stderr.
    (OutputTarget::isStandardOutput(pos.at(2)) ? err : out)
        << "exported " << chosen.size() << (chosen.size() == 1 ? " preset" : " presets") << " to "
        << (OutputTarget::isStandardOutput(pos.at(2)) ? QStringLiteral("standard output") : pos.at(2)) << '\n';
    return 0;
}

/// `presets import FILE [--replace]`: a bundle's presets into the store; the replaced ones
/// are kept in a backup bundle.
int runPresetsImport(const QCommandLineParser &p, QTextStream &out, QTextStream &err)
{
    const QStringList pos = p.positionalArguments();
    if (pos.size() != 3) {
        err << "usage: headroom presets import FILE.json [--replace]\n";
        return 2;
    }
    QStringList warnings;
    const QVector<QJsonObject> presets = namingTheFile(QStringLiteral("presets import"), [&] { return PresetBundle::read(pos.at(2), &warnings); });
    for (const QString &w : std::as_const(warnings))
        err << "warning: " << w << '\n';
    auto store = writableStore(err);
    if (!store)
        return 1;
    PresetStore::ImportResult result;
    QString error;
    if (!store->importPresets(presets, isSet(p, "replace"), &result, &error)) {
        err << "error: " << error << '\n';
        return 1;
    }
    out << "imported " << pos.at(2) << ": " << result.added.size() << " added, " << result.replaced.size() << " replaced, "
        << result.unchanged.size() << " unchanged\n";
    if (!result.backupPath.isEmpty())
        out << "the replaced presets as they were: " << result.backupPath << '\n';
    return 0;
}

} // namespace

int runPresets(const QCommandLineParser &p, QTextStream &out, QTextStream &err, const CommandLine::ReportWriterHook &)
{
    const QString verb = p.positionalArguments().value(1);
    if (verb == QLatin1String("list"))
        return runPresetsList(p, out, err);
    if (verb == QLatin1String("add"))
        return runPresetsAdd(p, out, err);
    if (verb == QLatin1String("edit"))
        return runPresetsEdit(p, out, err);
    if (verb == QLatin1String("remove"))
        return runPresetsRemove(p, out, err);
    if (verb == QLatin1String("export"))
        return runPresetsExport(p, out, err);
    if (verb == QLatin1String("import"))
        return runPresetsImport(p, out, err);
    err << "usage: headroom presets list|add|edit|remove|export|import (see --help)\n";
    return 2;
}

} // namespace Headroom
