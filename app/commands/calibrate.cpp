// SPDX-License-Identifier: GPL-3.0-or-later
// `headroom calibrate LOG`: an engine's start-up log, its printed figures against the predicted ones.
#include "commands/commands.h"

#include "cli.h"
#include "commands/options.h"
#include "commands/planflags.h"
#include "commands/presetlookup.h"
#include "core/inputerror.h"
#include "core/jsonnumbers.h"
#include "io/configimporter.h"
#include "io/logcalibration.h"
#include "io/scenarioecho.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <cmath>

namespace Headroom {

namespace {

/// The model a log names, when Headroom knows it: a preset whose hf_id or name the printed name
/// names (LogCalibration::namesModel: "meta-llama/Llama-3.1-8B-Instruct" is the llama-3.1-8b
/// preset's config), or a config.json at the printed path (vLLM's model='/models/x' is a folder).
std::optional<ModelShape> modelForLog(const QString &printed, QTextStream &err)
{
    if (printed.isEmpty())
        return std::nullopt;
    const PresetStore *store = openStore(err);
    for (const PresetRecord &r : store ? store->list(QStringLiteral("model")) : PresetStore::builtInPresets()) {
        if (r.kind != QLatin1String("model"))
            continue;
        const QString hf = r.json.value(QStringLiteral("hf_id")).toString();
        if ((!hf.isEmpty() && LogCalibration::namesModel(printed, hf)) || LogCalibration::namesModel(printed, r.id))
            return ConfigImporter::fromPreset(r.json);
    }
    const QFileInfo path(printed);
    for (const QFileInfo &config : {QFileInfo(path.filePath() + QStringLiteral("/config.json")), path})
        if (config.isFile() && config.fileName() == QLatin1String("config.json"))
            return ConfigImporter::fromFile(config.filePath(), QStringLiteral("LOGFILE"));
    return std::nullopt;
}

/// The log LOGFILE names, read (LogCalibration::read). Throws InputError naming LOGFILE when
/// it is not a readable file of at most 64 MiB, or a line of it is refused.
LogReading readLog(const QString &path)
{
    QFile file(path);
    const QFileInfo info(path);
    if (!info.isFile() || info.size() > 64 * Units::MiB || !file.open(QIODevice::ReadOnly))
        throw InputError(QStringLiteral("LOGFILE"), QStringLiteral("cannot read %1 (a text log of at most 64 MiB)").arg(path));
    return LogCalibration::read(QString::fromUtf8(file.readAll()), QStringLiteral("LOGFILE"));
}

/// Fills what the flags left unset in `base` from the log: the model it names, the card's
/// memory, and no weights when a llama.cpp log sizes only the cache. Throws InputError naming
/// --model when the model is neither given nor known.
void completeFromLog(Scenario &base, const LogReading &reading, QTextStream &err)
{
    if (base.model.groups.isEmpty()) {
        if (const auto known = modelForLog(reading.model, err))
            base.model = *known;
        else if (reading.engine != Engine::LlamaCpp)
            throw InputError(QStringLiteral("--model"),
                             reading.model.isEmpty()
                                 ? QStringLiteral("the log names no model: give --model with a preset id (`headroom presets list`) or the "
                                                  "model's config.json path, e.g. --model llama-3.1-8b")
                                 : QStringLiteral("the log names model \"%1\", which no preset names and no config.json here holds: give "
                                                  "--model with its config.json path (e.g. --model %2/config.json, from the model's "
                                                  "Hugging Face page) or a preset id of the same shape (`headroom presets list`)")
                                       .arg(reading.model, reading.model.section(QLatin1Char('/'), -1)));
    }
    if (base.gpu.memoryBytes <= 0)
        base.gpu = GpuSpec::custom(reading.totalMemory.value_or(reading.freeBefore.value_or(80 * Units::GiB)));
    if (base.model.totalParams <= 0 && !base.weightsBytes && !reading.weights)
        base.weightsBytes = 0; // llama.cpp logs size the cache, not the weights
}

/// The calibration as text: the log's engine, version and model, one row per figure
/// (printed, predicted, their difference, and the figure from the measured terms), then the notes.
void printCalibration(QTextStream &out, const LogReading &reading, const Scenario &calibrated, const QVector<CalibrationRow> &rows,
                      const QStringList &notes)
{
    out << Engines::name(reading.engine) << " log" << (reading.version.isEmpty() ? QString() : QStringLiteral(" (v%1)").arg(reading.version))
        << ", model " << (reading.model.isEmpty() ? calibrated.model.name : reading.model) << ": " << reading.linesUsed << " of "
        << reading.linesRead << " lines read\n\n";
    // "predicted": before hardware (the log's settings, none of its measurements); "from measured":
    // the same figure from the log's measured terms, which checks the per-token rule alone.
    out << QStringLiteral("%1 %2 %3 %4 %5\n").arg(Cli::tr("figure").leftJustified(46), Cli::tr("printed").rightJustified(15),
                                                  Cli::tr("predicted").rightJustified(15), Cli::tr("difference").rightJustified(10),
                                                  Cli::tr("from measured").rightJustified(15));
    for (const CalibrationRow &row : rows)
        out << QStringLiteral("%1 %2 %3 %4 %5\n")
                   .arg(row.figure.leftJustified(46), row.format(row.printed).rightJustified(15), row.format(row.predicted).rightJustified(15),
                        (std::isfinite(row.difference()) ? QStringLiteral("%1%").arg(row.difference() * 100, 0, 'f', 2) : QStringLiteral("n/a")).rightJustified(10),
                        row.format(row.measured).rightJustified(15));
    for (const QString &note : notes)
        out << Cli::tr("note: %1").arg(note) << '\n';
}

} // namespace

int runCalibrate(const QCommandLineParser &p, QTextStream &out, QTextStream &err, const CommandLine::ReportWriterHook &)
{
    const QStringList pos = p.positionalArguments();
    if (pos.size() != 2) {
        err << "usage: headroom calibrate LOGFILE [--model ID|PATH] [--gpu ID] [--json]\n";
        return 2;
    }
    const LogReading reading = readLog(pos.at(1));
    Scenario base = scenarioFrom(p, err, false, false);
    completeFromLog(base, reading, err);
    const Scenario calibrated = LogCalibration::apply(reading, base);
    refuseForeignFlags(p, calibrated.engine); // against the log's engine
    const QVector<CalibrationRow> rows = LogCalibration::compare(reading, base);
    const QStringList notes = LogCalibration::warnings(reading, calibrated, rows);
    if (isSet(p, "json")) {
        QJsonObject o = LogCalibration::toJson(reading, rows);
        o.insert(QStringLiteral("warnings"), QJsonArray::fromStringList(notes));
        o.insert(QStringLiteral("inputs"), scenarioEcho(calibrated));
        out << QString::fromUtf8(JsonNumbers::toJson(o));
        return 0;
    }
    printCalibration(out, reading, calibrated, rows, notes);
    return 0;
}

} // namespace Headroom
