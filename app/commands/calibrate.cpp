// SPDX-License-Identifier: GPL-3.0-or-later
// `headroom calibrate LOG`: an engine's start-up log, its printed figures against the predicted ones;
// or a benchmark's printed result, the card's achieved fractions fitted to its times.
#include "commands/commands.h"
#include "core/filekind.h"

#include "cli.h"
#include "commands/options.h"
#include "commands/planflags.h"
#include "commands/presetlookup.h"
#include "core/inputerror.h"
#include "core/jsonnumbers.h"
#include "io/benchcalibration.h"
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

/// The text of the file LOGFILE names. Throws InputError naming LOGFILE when it is not a
/// readable file of at most 64 MiB.
QString readText(const QString &path)
{
    QFile file(path);
    const QFileInfo info(path);
    if (!info.isFile() || info.size() > 64 * Units::MiB || !file.open(QIODevice::ReadOnly))
        throw InputError(QStringLiteral("LOGFILE"), QStringLiteral("cannot read %1 (a text log of at most 64 MiB)").arg(path));
    const QByteArray bytes = file.readAll();
    FileKind::expect(path, bytes, {FileKind::Kind::EngineLog, FileKind::Kind::Benchmark},
                     QStringLiteral("an engine log or a benchmark's result"), QStringLiteral("LOGFILE"));
    return QString::fromUtf8(bytes);
}

/// Fills what the flags left unset in `base` from the log: the model it names, the card's
/// memory, and no weights when a llama.cpp log sizes only the cache. Throws InputError naming
/// --model when the model is neither given nor known, after what a failed start shows.
void completeFromLog(Scenario &base, const LogReading &reading, QTextStream &err)
{
    if (base.model.groups.isEmpty()) {
        if (const auto known = modelForLog(reading.model, err))
            base.model = *known;
        else if (reading.engine != Engine::LlamaCpp) {
            QString why = reading.model.isEmpty()
                ? QStringLiteral("the log names no model: give --model with a preset id (`headroom presets list`) or the "
                                 "model's config.json path, e.g. --model llama-3.1-8b")
                : QStringLiteral("the log names model \"%1\", which no preset names and no config.json here holds: give "
                                 "--model with its config.json path (e.g. --model %2/config.json, from the model's "
                                 "Hugging Face page) or a preset id of the same shape (`headroom presets list`)")
                      .arg(reading.model, reading.model.section(QLatin1Char('/'), -1));
            // A failed start is said for what it shows even when no model can be compared.
            if (!reading.failures.isEmpty()) {
                why[0] = why.at(0).toUpper();
                why = reading.failures.join(QLatin1Char(' ')) + QLatin1Char(' ') + why;
            }
            throw InputError(QStringLiteral("--model"), why);
        }
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
                        CalibrationRow::formatDifference(row.difference()).rightJustified(10),
                        row.format(row.measured).rightJustified(15));
    for (const QString &note : notes)
        out << Cli::tr("note: %1").arg(note) << '\n';
}

/// A benchmark's calibration as text: the tool, its model and lines, one row per time it
/// printed (measured, predicted before and after the fit, the differences), then the notes.
void printBenchCalibration(QTextStream &out, const BenchReading &reading, const BenchCalibration &c)
{
    out << reading.toolName() << " result" << (reading.model.isEmpty() ? QString() : QStringLiteral(", model %1").arg(reading.model)) << ": "
        << reading.linesUsed << " of " << reading.linesRead << " lines read\n\n";
    out << QStringLiteral("%1 %2 %3 %4 %5 %6\n")
               .arg(Cli::tr("figure").leftJustified(40), Cli::tr("measured").rightJustified(13), Cli::tr("predicted before").rightJustified(17),
                    Cli::tr("predicted after").rightJustified(16), Cli::tr("difference").rightJustified(11), Cli::tr("after").rightJustified(9));
    for (const CalibrationRow &row : c.rows)
        out << QStringLiteral("%1 %2 %3 %4 %5 %6\n")
                   .arg(row.figure.leftJustified(40), row.format(row.printed).rightJustified(13), row.format(row.predicted).rightJustified(17),
                        row.format(row.measured).rightJustified(16), CalibrationRow::formatDifference(row.difference()).rightJustified(11),
                        CalibrationRow::formatDifference(row.measuredDifference()).rightJustified(9));
    for (const QString &note : c.notes)
        out << Cli::tr("note: %1").arg(note) << '\n';
}

/// `calibrate` on a benchmark's printed result (BenchReading): the scenario from the flags (the
/// model a vLLM or SGLang argument echo names when --model is not given), its fractions fitted.
/// Throws InputError naming --model when no model is given or known, and the fit's errors.
int calibrateFromBenchmark(const QCommandLineParser &p, const QString &text, QTextStream &out, QTextStream &err)
{
    const BenchReading reading = BenchReading::read(text, QStringLiteral("LOGFILE"));
    Scenario base = scenarioFrom(p, err, false, false);
    if (base.model.groups.isEmpty()) {
        const auto known = reading.tool == BenchReading::Tool::LlamaBench ? std::nullopt : modelForLog(reading.model, err);
        if (!known)
            throw InputError(QStringLiteral("--model"), QStringLiteral("a benchmark prints no model shape%1: give --model with a preset id "
                                                                       "(`headroom presets list`) or the model's config.json path")
                                                            .arg(reading.model.isEmpty() ? QString() : QStringLiteral(" (it names \"%1\")").arg(reading.model)));
        base.model = *known;
    }
    refuseForeignFlags(p, base.engine);
    const BenchCalibration c = BenchCalibration::fit(reading, base);
    if (isSet(p, "json")) {
        QJsonObject o = c.toJson(reading);
        o.insert(QStringLiteral("warnings"), QJsonArray::fromStringList(c.notes));
        o.insert(QStringLiteral("inputs"), scenarioEcho(c.after));
        out << QString::fromUtf8(JsonNumbers::toJson(o));
        return 0;
    }
    printBenchCalibration(out, reading, c);
    return 0;
}

} // namespace

int runCalibrate(const QCommandLineParser &p, QTextStream &out, QTextStream &err, const CommandLine::ReportWriterHook &)
{
    const QStringList pos = p.positionalArguments();
    if (pos.size() != 2) {
        err << "usage: headroom calibrate LOGFILE [--model ID|PATH] [--gpu ID] [--json]\n"
               "  LOGFILE: an engine's start-up log, or a benchmark's printed result (vllm bench serve, sglang.bench_serving,\n"
               "  a llama-bench table), whose times fit --bandwidth-efficiency and --compute-utilization on --gpu\n";
        return 2;
    }
    const QString text = readText(pos.at(1));
    if (BenchReading::recognises(text))
        return calibrateFromBenchmark(p, text, out, err);
    const LogReading reading = LogCalibration::read(text, QStringLiteral("LOGFILE"));
    // The log names its engine; another on the command line is a contradiction, not a choice
    // (an attacker's vLLM log with --engine sglang was read as vLLM, in silence).
    if (isSet(p, "engine")) {
        const Engine given = Engines::parse(value(p, "engine"), QStringLiteral("--engine"));
        // Ollama's runner prints llama.cpp's own lines: either name serves for the other's log.
        const auto family = [](Engine e) { return e == Engine::Ollama ? Engine::LlamaCpp : e; };
        if (reading.engine != Engine::Plain && family(given) != family(reading.engine))
            throw InputError(QStringLiteral("--engine"), QStringLiteral("%1 disagrees with the log, which %2 printed: leave --engine out, or give "
                                                                        "the log of a %1 run")
                                                             .arg(Engines::name(given), Engines::rule(reading.engine).title()));
    }
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
