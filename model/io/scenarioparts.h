// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "io/scenariofile.h"
#include "core/inputranges.h"

#include <QJsonObject>
#include <QJsonValue>
#include <limits>
#include <optional>

namespace Headroom {

/// The parts ScenarioFile (io/scenariofile.cpp) reads and writes with, one file each by what
/// it does. Internal to io/: callers use io/scenariofile.h.
namespace ScenarioParts {

// JSON values as a .headroom file spells them (io/scenariojson.cpp).

/// Doubles round-trip through JSON exactly; qint64 above 2^53 does not, so
/// byte counts and token counts are written as decimal strings when large.
QJsonValue big(qint64 v);

/// Any 64-bit whole number (a JSON number, or a decimal string above 2^53). `prefix` (e.g.
/// "engine.") makes the field name the error carries: the key as the file spells it.
/// `minimum`: the least the field holds (0 for a size), named in the refusal.
qint64 readBig(const QJsonObject &o, const char *key, qint64 fallback = 0, const QString &prefix = {},
               qint64 minimum = std::numeric_limits<qint64>::min());

/// A text the outputs print (a name, a source, a distribution's label): refused with a control
/// character (U+0000-U+001F, U+007F-U+009F) or a bidirectional override (U+202A-U+202E,
/// U+2066-U+2069), which reached the terminal and the report as they were ("fixed:1\0evil"
/// printed a NUL byte; an escape sequence would have run; attacker's report).
QString readText(const QJsonObject &o, const char *key, const QString &prefix);

/// An optional value as JSON: null when empty, a 64-bit count through big().
template <typename T>
inline QJsonValue optional(const std::optional<T> &v)
{
    if (!v)
        return QJsonValue();
    if constexpr (std::is_same_v<T, qint64>)
        return big(*v);
    else
        return QJsonValue(*v);
}

/// A small whole number (layers, heads, dimensions, TP, block size, kinds) in
/// [minimum, maximum], checked before it narrows to int.
int readInt(const QJsonObject &o, const char *key, qint64 fallback, qint64 minimum, const QString &prefix = {},
            qint64 maximum = 10'000'000);

/// An input with a range rule (core/inputranges.h), or the fallback when absent.
double readReal(const QJsonObject &o, RealInput input, double fallback, const QString &prefix);

/// An input with a range rule (core/inputranges.h), or nothing when absent or null.
std::optional<double> readOptionalReal(const QJsonObject &o, RealInput input, const QString &prefix);

/// A 64-bit whole number (readBig) at least `minimum`, or nothing when absent or null.
std::optional<qint64> readOptionalBig(const QJsonObject &o, const char *key, const QString &prefix = {},
                                      qint64 minimum = std::numeric_limits<qint64>::min());

/// A whole number of a side pool by its range rule (core/inputranges.h), named "speculative.key".
int readCount(const QJsonObject &o, CountInput input, int fallback, const QString &prefix);

// The model, card and lengths a file carries whole (io/scenarioshapes.cpp).

/// A model shape as a .headroom file holds it ("model", and a draft's "draft_model"):
/// counts above 2^53 as decimal strings (big).
QJsonObject modelToJson(const ModelShape &m);

/// A model shape from a .headroom file's "model" object, every figure checked (refusals name
/// "model.<key>", a group's "model.groups[i].<key>"). Throws InputError.
ModelShape modelFromJson(const QJsonObject &o);

/// A card as a .headroom file holds it ("gpu"), in GpuSpec::fromPreset's keys.
QJsonObject gpuToJson(const GpuSpec &g);

/// Loaded lengths as a .headroom file holds them ("distribution"): the lengths and their
/// probabilities, prompts, arrivals and a conversation trace's grouping.
QJsonObject distributionToJson(const LengthDistribution &d);

/// Lengths from a .headroom file's "distribution", checked to form a distribution (ascending
/// positive lengths within 2^53, probabilities summing to 1). Throws InputError naming
/// "distribution.<key>".
LengthDistribution distributionFromJson(const QJsonObject &o);

// The inputs a file and a plan --json echo spell alike (io/scenarioinputs.cpp).

/// Pipeline, data and expert parallelism (engine flags --pp, --dp, --ep), one block.
void readParallelism(const QJsonObject &o, Scenario &s, const QString &prefix);

/// The engine settings as one object holds them: a .headroom file's "engine"
/// (prefix "engine.", byte fields bare) or the "inputs" echo of plan --json
/// (prefix "inputs.", byte fields ending in "_bytes"). Every value is range-checked.
EngineSettings readEngineSettings(const QJsonObject &o, Engine engine, const QString &prefix, const char *byteSuffix);

/// The inputs both versions spell alike: length scale, cap, risk, margin, target and the
/// serving model's fractions, each under its range rule; then the whole-number checks.
void readLengthsAndServing(const QJsonObject &in, Scenario &s, const QString &ip);

/// The scaled distribution stays within LengthDistribution::maxTokens, so
/// every later scaled() holds.
void checkScale(const Scenario &s);

// Version 0: a plan --json output reopened as a scenario (io/planoutputimport.cpp).

/// Version 0: the output of `headroom plan --json`, whose "inputs" name presets.
Scenario migrateFromPlanOutput(const QJsonObject &plan, const ScenarioFile::ModelLookup &models, const ScenarioFile::GpuLookup &gpus,
                               const QString &folder);

} // namespace ScenarioParts

} // namespace Headroom
