// SPDX-License-Identifier: GPL-3.0-or-later
#include "fuzztargets.h"

#include "core/dtype.h"
#include "core/inputerror.h"
#include "core/units.h"
#include "core/inputranges.h"
#include "io/configimporter.h"
#include "io/logcalibration.h"
#include "io/scenariofile.h"
#include "kv/kvcost.h"
#include "lengths/lengthdistribution.h"
#include "plan/capacity.h"
#include "store/pagescan.h"
#include "store/presetbundle.h"
#include "store/presetstore.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <cmath>

namespace Headroom::FuzzTargets {

namespace {

// A Llama-3.1-8B-shaped model (its config.json, tests/data/llama-3.1-8b) for
// the lookups of plan --json outputs and the calibration base.
ModelShape baseModel()
{
    static const ModelShape m = ConfigImporter::fromConfig(QJsonDocument::fromJson(R"({
        "model_type": "llama", "hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32,
        "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 128256,
        "max_position_embeddings": 131072, "torch_dtype": "bfloat16"})").object());
    return m;
}

QString checkDistribution(const LengthDistribution &d)
{
    if (d.lengths.isEmpty() || d.lengths.size() != d.probabilities.size())
        return QStringLiteral("distribution without lengths");
    double sum = 0;
    for (int i = 0; i < d.lengths.size(); ++i) {
        if (d.lengths.at(i) < 1 || d.lengths.at(i) > LengthDistribution::maxTokens || (i > 0 && d.lengths.at(i) <= d.lengths.at(i - 1)))
            return QStringLiteral("length %1 at %2 out of order or range").arg(d.lengths.at(i)).arg(i);
        if (!(d.probabilities.at(i) >= 0))
            return QStringLiteral("negative probability at %1").arg(i);
        sum += d.probabilities.at(i);
    }
    if (std::abs(sum - 1) > 1e-6)
        return QStringLiteral("probabilities sum to %1").arg(sum, 0, 'g', 17);
    if (!std::isfinite(d.mean()) || d.quantile(0.99) < d.lengths.first() || d.quantile(0.99) > d.maximum())
        return QStringLiteral("mean or quantile out of range");
    return {};
}

QString checkError(const InputError &e)
{
    if (e.field().isEmpty() || e.message().isEmpty())
        return QStringLiteral("an InputError without a field or message: \"%1\"").arg(e.text());
    return {};
}

QString config(const QByteArray &input)
{
    const QJsonDocument doc = QJsonDocument::fromJson(input);
    if (!doc.isObject())
        return {};
    try {
        const QJsonObject o = doc.object();
        const ModelShape m = o.value(QStringLiteral("kind")).toString() == QLatin1String("model") ? ConfigImporter::fromPreset(o)
                                                                                                 : ConfigImporter::fromConfig(o);
        if (m.groups.isEmpty() || m.totalParams < 0 || m.activeParams < 0 || m.hiddenLayers < 1)
            return QStringLiteral("accepted a model without layers or with a negative count");
        const KvCost cost(m, Dtype::BF16, 1, 16, std::nullopt);
        if (cost.bytesPerToken() < 0 || cost.sessionBytes(1000, false, QStringLiteral("--context")) < 0)
            return QStringLiteral("negative KV bytes");
    } catch (const InputError &e) {
        return checkError(e);
    }
    return {};
}

QString distribution(const QByteArray &input)
{
    const QString spec = QString::fromUtf8(input);
    if (spec.trimmed().startsWith(QLatin1String("trace"), Qt::CaseInsensitive))
        return {}; // reads a file: the trace target covers it
    try {
        const LengthDistribution d = LengthDistribution::parse(spec, QStringLiteral("--distribution"));
        if (const QString p = checkDistribution(d); !p.isEmpty())
            return p;
        if (const QString p = checkDistribution(d.scaled(0.5, QStringLiteral("--length-scale"))); !p.isEmpty())
            return QStringLiteral("scaled: ") + p;
    } catch (const InputError &e) {
        return checkError(e);
    }
    return {};
}

QString trace(const QByteArray &input)
{
    const QString path = QDir::temp().filePath(QStringLiteral("headroom-fuzz-trace-%1.csv").arg(QCoreApplication::applicationPid()));
    {
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate) || f.write(input) != input.size())
            return QStringLiteral("cannot write %1").arg(path);
    }
    QString problem;
    try {
        const LengthDistribution d = LengthDistribution::fromTrace(path, QStringLiteral("--distribution"));
        problem = checkDistribution(d);
        if (problem.isEmpty() && !d.promptLengths.isEmpty() && d.promptLengths.last() > d.maximum())
            problem = QStringLiteral("a prompt longer than its session");
        if (problem.isEmpty() && !(d.arrivalRatePerSecond >= 0 && std::isfinite(d.arrivalRatePerSecond)))
            problem = QStringLiteral("arrival rate %1").arg(d.arrivalRatePerSecond);
    } catch (const InputError &e) {
        problem = checkError(e);
    }
    QFile::remove(path);
    return problem;
}

QString scenario(const QByteArray &input)
{
    const QJsonDocument doc = QJsonDocument::fromJson(input);
    if (!doc.isObject())
        return {};
    Scenario s;
    QString name;
    try {
        s = ScenarioFile::fromJson(doc.object(), &name, [](const QString &) { return baseModel(); },
                                   [](const QString &) { return GpuSpec::custom(80 * Units::GB); });
    } catch (const InputError &e) {
        return checkError(e);
    }
    // What a file holds must save and reopen (issue 10, kind 5).
    try {
        const Scenario again = ScenarioFile::fromJson(ScenarioFile::toJson(s, name), nullptr);
        if (again != s)
            return QStringLiteral("the scenario reopens as a different one");
    } catch (const InputError &e) {
        return QStringLiteral("saved, then refused on opening: ") + e.text();
    }
    const CapacityResult r = computeCapacity(s);
    if (r.ok && (r.kvBytesPerToken < 0 || r.sessionBytes < 0 || r.maxSessions < 0))
        return QStringLiteral("negative capacity figures");
    if (!r.ok && r.error.isEmpty())
        return QStringLiteral("capacity failed without an error");
    return {};
}

QString calibration(const QByteArray &input)
{
    try {
        const LogReading reading = LogCalibration::read(QString::fromUtf8(input), QStringLiteral("LOGFILE"));
        Scenario base;
        base.model = baseModel();
        base.gpu = GpuSpec::custom(reading.totalMemory.value_or(80 * Units::GiB));
        const Scenario calibrated = LogCalibration::apply(reading, base);
        const QVector<CalibrationRow> rows = LogCalibration::compare(reading, base);
        LogCalibration::warnings(reading, calibrated, rows);
        LogCalibration::toJson(reading, rows);
    } catch (const InputError &e) {
        return checkError(e);
    }
    return {};
}

QString units(const QByteArray &input)
{
    if (input.isEmpty())
        return {};
    const QString text = QString::fromUtf8(input.mid(1));
    const int pick = static_cast<unsigned char>(input.at(0)) % 7;
    try {
        switch (pick) {
        case 0:
            if (Units::parseSize(text, QStringLiteral("--gpu-memory"), true) < 0)
                return QStringLiteral("negative size");
            break;
        case 1:
            if (Units::parseCount(text, QStringLiteral("--context")) < 1)
                return QStringLiteral("count below its minimum");
            break;
        case 2: {
            const double f = Units::parseFraction(text, QStringLiteral("--risk"), 0, 0.5);
            if (!(f > 0 && f <= 0.5))
                return QStringLiteral("fraction out of range");
            break;
        }
        case 3:
            for (int i = 0; i <= int(RealInput::DecodingShare); ++i) {
                const RealRange &r = InputRanges::of(RealInput(i));
                try {
                    const double v = InputRanges::parse(RealInput(i), text, QString::fromLatin1(r.flag));
                    if (!(v >= r.low && v <= r.high))
                        return QStringLiteral("%1 accepted %2").arg(QString::fromLatin1(r.flag)).arg(v);
                } catch (const InputError &e) {
                    if (const QString p = checkError(e); !p.isEmpty())
                        return p;
                }
            }
            break;
        case 4:
            Dtypes::parse(text, QStringLiteral("--kv-dtype"));
            break;
        case 5:
            Engines::parse(text, QStringLiteral("--engine"));
            break;
        case 6: {
            const qint64 b = Units::parseSize(text, QStringLiteral("--weights"));
            Units::formatBytes(b, UnitSystem::Binary);
            Units::formatBytes(b, UnitSystem::Decimal);
            break;
        }
        }
    } catch (const InputError &e) {
        return checkError(e);
    }
    return {};
}

QString bundle(const QByteArray &input)
{
    QVector<QJsonObject> presets;
    try {
        presets = PresetBundle::fromJson(input, QStringLiteral("team.json"));
    } catch (const InputError &e) {
        return checkError(e);
    }
    // What a bundle imports, the store accepts (validate) and exports again as itself.
    QVector<PresetRecord> records;
    for (const QJsonObject &o : std::as_const(presets)) {
        try {
            PresetStore::validate(o);
        } catch (const InputError &e) {
            return QStringLiteral("imported, then refused by the store: ") + e.text();
        }
        records.append({o.value(QStringLiteral("id")).toString(), o.value(QStringLiteral("kind")).toString(), {}, {}, false, o});
    }
    try {
        if (PresetBundle::fromJson(PresetBundle::toJson(records), QStringLiteral("again.json")) != presets)
            return QStringLiteral("the bundle exports as a different one");
    } catch (const InputError &e) {
        return QStringLiteral("exported, then refused on import: ") + e.text();
    }
    return {};
}

QString pagescan(const QByteArray &input)
{
    // A damaged store's bytes: rows of exactly the asked columns, one key per index entry.
    for (const int columns : {2, 4})
        for (const PageScan::Row &row : PageScan::textRows(input, columns))
            if (row.values.size() != columns)
                return QStringLiteral("a row of %1 values, not %2").arg(row.values.size()).arg(columns);
    for (const PageScan::Row &key : PageScan::indexTextKeys(input))
        if (key.values.size() != 1)
            return QStringLiteral("an index key of %1 values").arg(key.values.size());
    PageScan::userVersion(input);
    return {};
}

} // namespace

QStringList names()
{
    return {QStringLiteral("config"), QStringLiteral("distribution"), QStringLiteral("trace"),
            QStringLiteral("scenario"), QStringLiteral("calibration"), QStringLiteral("units"),
            QStringLiteral("bundle"), QStringLiteral("pagescan")};
}

QString run(const QString &target, const QByteArray &input)
{
    if (target == QLatin1String("config"))
        return config(input);
    if (target == QLatin1String("distribution"))
        return distribution(input);
    if (target == QLatin1String("trace"))
        return trace(input);
    if (target == QLatin1String("scenario"))
        return scenario(input);
    if (target == QLatin1String("calibration"))
        return calibration(input);
    if (target == QLatin1String("units"))
        return units(input);
    if (target == QLatin1String("bundle"))
        return bundle(input);
    if (target == QLatin1String("pagescan"))
        return pagescan(input);
    return QStringLiteral("unknown fuzz target %1").arg(target);
}

} // namespace Headroom::FuzzTargets
