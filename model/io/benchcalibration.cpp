// SPDX-License-Identifier: GPL-3.0-or-later
#include "io/benchcalibration.h"
#include "plan/timeconstants.h"

#include "core/inputerror.h"
#include "core/units.h"
#include "plan/capacity.h"
#include "plan/servingestimate.h"

#include <QJsonArray>
#include <cmath>
#include <functional>
#include <set>

namespace Headroom {

namespace {

using Kind = BenchFigure::Kind;
using Status = FractionFit::Status;

constexpr double lowestFraction = 1e-6;
constexpr double highestFraction = 1e3;

// What a figure's prediction reads from the plan, fixed whatever the fractions: the weights and
// one session's KV bytes per GPU at the figure's context.
struct PlanTerms
{
    qint64 weightsBytesPerGpu = 0;
    double kvBytesPerSessionPerGpu = 0;
};

// The plan's terms for figure `f` of scenario `s`, as capacity.cpp computes them for itl_ms and
// ttft_ms: its weights per GPU, and a session's paged KV on one GPU at the figure's context
// (windows, MLA and recurrent state included). Throws the plan's InputError.
PlanTerms planTerms(const Scenario &s, const BenchFigure &f)
{
    Scenario at = s;
    at.distribution.reset();
    at.preallocate = false;
    at.contextTokens = std::max<qint64>(1, qint64(std::ceil(f.tokens)));
    const CapacityResult plan = computeCapacity(at);
    if (!plan.ok)
        throw plan.refusal();
    return PlanTerms{plan.weightsBytesPerGpu, double(plan.sessionBytesPerGpu)};
}

// Every call into the time model (plan/servingestimate.h) is here: figure `f` as `s` predicts
// it, ms. A decode step of f.batch sessions (whole, at least 1) or the time to the first token
// of f.tokens; NaN when the model gives none (a card without a bandwidth figure).
double timeModelMs(const Scenario &s, const PlanTerms &t, const BenchFigure &f)
{
    if (f.kind == Kind::Prefill) {
        const auto ttft = timeToFirstToken(s, t.weightsBytesPerGpu, f.tokens);
        return ttft ? *ttft * 1e3 : std::numeric_limits<double>::quiet_NaN();
    }
    const auto step = decodeStep(s, t.weightsBytesPerGpu, t.kvBytesPerSessionPerGpu, std::max<qint64>(1, std::llround(f.batch)));
    return step ? step->seconds * 1e3 : std::numeric_limits<double>::quiet_NaN();
}

// The fraction in [1e-6, 1000] at which `predicted` (ms, falling as the fraction grows) equals
// `measuredMs`: bisection on the fraction's logarithm to a relative 1e-12. Reports a figure the
// prediction at 1000 stays above (Unreachable) or the prediction at 1e-6 stays below (BelowRange).
FractionFit solve(const std::function<double(double)> &predicted, double measuredMs, double before, int figure)
{
    FractionFit fit{Status::Fitted, before, 0, std::numeric_limits<double>::quiet_NaN(), figure};
    if (const double floor = predicted(highestFraction); !(floor <= measuredMs)) {
        fit.status = Status::Unreachable;
        fit.floorMs = floor;
        return fit;
    }
    if (predicted(lowestFraction) < measuredMs) {
        fit.status = Status::BelowRange;
        fit.value = lowestFraction;
        return fit;
    }
    double a = std::log(lowestFraction), b = std::log(highestFraction);
    for (int i = 0; i < 200 && b - a > 1e-12; ++i) {
        const double mid = (a + b) / 2;
        (predicted(std::exp(mid)) > measuredMs ? a : b) = mid;
    }
    fit.value = std::exp((a + b) / 2);
    fit.status = fit.value <= 1 ? Status::Fitted : Status::AboveOne;
    return fit;
}

// The figure of `kind` a fraction is fitted to: the lowest load, then the preferred figure
// (BenchFigure::rank), then the first printed; -1 when there is none.
int chosen(const BenchReading &r, Kind kind)
{
    int best = -1;
    for (int i = 0; i < r.figures.size(); ++i) {
        const BenchFigure &f = r.figures.at(i);
        if (f.kind == kind && (best < 0 || std::pair(f.batch, f.rank) < std::pair(r.figures.at(best).batch, r.figures.at(best).rank)))
            best = i;
    }
    return best;
}

// Fits c.after's fractions: the bandwidth efficiency to figure `decode`, the compute utilization
// to figure `prefill`, alternating until neither moves (each prediction reads both fractions).
// A fraction found outside (0, 1] is reported and the scenario's kept.
void fitFractions(BenchCalibration &c, const BenchReading &r, const QVector<PlanTerms> &terms, int decode, int prefill)
{
    // The fractions in force before: the scenario's own, else the engine's fitted ones.
    const TimeConstants before = timeConstants(c.before);
    c.bandwidth = FractionFit{Status::NoFigure, before.bandwidthFraction, 0, std::numeric_limits<double>::quiet_NaN(), -1};
    c.compute = FractionFit{Status::NoFigure, before.computeFraction, 0, std::numeric_limits<double>::quiet_NaN(), -1};
    Scenario &s = c.after;
    const auto fitOne = [&](FractionFit &fit, std::optional<double> Scenario::*fraction, int figure) {
        if (figure < 0)
            return;
        const BenchFigure &f = r.figures.at(figure);
        const std::optional<double> held = s.*fraction;
        fit = solve([&](double value) { s.*fraction = value; return timeModelMs(s, terms.at(figure), f); }, f.ms(), fit.before, figure);
        s.*fraction = fit.status == Status::Fitted ? fit.value : held;
    };
    for (int round = 0; round < 50; ++round) {
        const TimeConstants was = timeConstants(s);
        fitOne(c.bandwidth, &Scenario::bandwidthEfficiency, decode);
        fitOne(c.compute, &Scenario::computeUtilization, prefill);
        const TimeConstants now = timeConstants(s);
        if (std::abs(now.bandwidthFraction - was.bandwidthFraction) <= 1e-10 * was.bandwidthFraction
            && std::abs(now.computeFraction - was.computeFraction) <= 1e-10 * was.computeFraction)
            break;
    }
}

// A figure's name in the rows: as printed, with its load when the paste holds several.
QString rowName(const BenchFigure &f)
{
    return f.load.isEmpty() ? f.figure : QStringLiteral("%1, %2").arg(f.figure, f.load);
}

// One sentence on a fraction's fit: what it was fitted to and its value, or why it was not.
QString fitNote(const FractionFit &fit, const char *name, const char *peak, const BenchReading &r)
{
    const QString fraction = QString::fromLatin1(name);
    const QString kept = QStringLiteral("%1 not fitted (kept at %2)").arg(fraction, Units::formatDecimal(fit.before, 4));
    if (fit.figure < 0)
        return kept + (QLatin1String(name) == QLatin1String("Bandwidth efficiency") ? QStringLiteral(": the benchmark prints no TPOT, ITL or tg row.")
                                                                                   : QStringLiteral(": the benchmark prints no TTFT or pp row."));
    const BenchFigure &f = r.figures.at(fit.figure);
    const QString what = QStringLiteral("%1 (%2 %3, line %4)").arg(f.figure, Units::formatDecimal(f.printed, 2), f.unit).arg(f.line);
    const QString at = f.kind == Kind::Decode
                           ? QStringLiteral("decode step of %1 concurrent sessions (%2) at %3 tokens of context (%4)")
                                 .arg(Units::formatDecimal(f.batch, 2), f.batchBasis, Units::formatDecimal(f.tokens, 1),
                                      r.tool == BenchReading::Tool::LlamaBench ? QStringLiteral("the depth + half the test's tokens")
                                                                                : QStringLiteral("mean prompt + half the mean output"))
                           : QStringLiteral("time to first token of a %1-token prompt").arg(Units::formatDecimal(f.tokens, 1));
    switch (fit.status) {
    case Status::Fitted:
        return QStringLiteral("%1 %2 -> %3: the fraction of the card's %4 at which the predicted %5 equals %6.")
            .arg(fraction, Units::formatDecimal(fit.before, 4), Units::formatDecimal(fit.value, 4), QLatin1String(peak), at, what);
    case Status::AboveOne:
        return QStringLiteral("%1: %2 needs %3 of the card's %4 for the %5, above 1: the time model cannot reach the measured figure even at the "
                              "card's peak (a model smaller or more quantized than the scenario's, a wider TP, speculative decoding, or "
                              "costs the model holds fixed).")
            .arg(kept, what, Units::formatDecimal(fit.value, 3), QLatin1String(peak), at);
    case Status::Unreachable:
        return QStringLiteral("%1: no fraction reaches %2 for the %3: even at 1000 x the card's %4 the model predicts %5 ms (a term the fraction "
                              "does not move: the compute roof, or costs the model holds fixed).")
            .arg(kept, what, at, QLatin1String(peak), Units::formatDecimal(fit.floorMs, 3));
    case Status::BelowRange:
    case Status::NoFigure:
        break;
    }
    return QStringLiteral("%1: %2 is slower than the %3 at a millionth of the card's %4: check the figure's unit and the scenario.")
        .arg(kept, what, at, QLatin1String(peak));
}

// What the fit assumed and did, one sentence each (BenchCalibration::notes).
QStringList notesOf(const BenchCalibration &c, const BenchReading &r)
{
    const Scenario &s = c.before;
    QStringList notes;
    notes << fitNote(c.bandwidth, "Bandwidth efficiency", "peak memory bandwidth", r)
          << fitNote(c.compute, "Compute utilization", "peak dense TFLOPS", r);
    std::set<double> loads;
    for (const BenchFigure &f : r.figures)
        loads.insert(f.batch);
    if (loads.size() > 1)
        notes << QStringLiteral("The paste holds %1 runs: the one at the lowest load (%2 in flight) is fitted, the others are compared at the "
                                "fitted fractions.").arg(loads.size()).arg(Units::formatDecimal(*loads.begin(), 2));
    if (c.compute.figure >= 0 && r.figures.at(c.compute.figure).batch > 1.5)
        notes << QStringLiteral("The TTFT fitted was measured with %1 requests in flight: it includes waiting behind other requests' prefills, "
                                "so the compute utilization fitted from it is a lower bound; a run at --max-concurrency 1 times the prefill alone.")
                     .arg(Units::formatDecimal(r.figures.at(c.compute.figure).batch, 2));
    notes << QStringLiteral("%1 prints no card, TP or engine: taken from the scenario: %2 (%3 GB/s, %4 TFLOPS dense BF16), model %5, TP %6, "
                            "engine %7%8.")
                 .arg(r.toolName(), s.gpu.name, Units::formatDecimal(double(s.gpu.bandwidthBytesPerSecond) / 1e9, 0),
                      Units::formatDecimal(s.gpu.bf16DenseTflops, 1), s.model.name)
                 .arg(s.tp)
                 .arg(Engines::name(s.engine),
                      r.weights ? QStringLiteral("; the weights are llama-bench's size column, %1 (its model: \"%2\")")
                                      .arg(Units::formatIn(*r.weights, Units::GiB, QStringLiteral("GiB"), 2), r.model)
                                : QString());
    if (!r.model.isEmpty() && r.tool != BenchReading::Tool::LlamaBench && !LogCalibration::namesModel(r.model, s.model.hfId)
        && !LogCalibration::namesModel(r.model, s.model.name))
        notes << QStringLiteral("The benchmark ran %1 but the figures are predicted for %2: give --model with %1's preset id or config.json "
                                "path (in the window: choose it) to compare that model.").arg(r.model, s.model.name);
    return notes + r.notes;
}

const char *statusName(Status s)
{
    switch (s) {
    case Status::Fitted: return "fitted";
    case Status::AboveOne: return "above_one";
    case Status::Unreachable: return "unreachable";
    case Status::BelowRange: return "below_range";
    case Status::NoFigure: break;
    }
    return "no_figure";
}

QJsonValue orNull(double v)
{
    return std::isfinite(v) ? QJsonValue(v) : QJsonValue();
}

// One fraction's fit as JSON: its status, the scenario's value, the value found, the one applied,
// the figure and line it was fitted to, and the model's floor when unreachable.
QJsonObject fitJson(const FractionFit &fit, const BenchReading &r)
{
    const bool found = fit.status == Status::Fitted || fit.status == Status::AboveOne;
    return QJsonObject{{QStringLiteral("status"), QLatin1String(statusName(fit.status))},
                       {QStringLiteral("before"), fit.before},
                       {QStringLiteral("value"), found ? QJsonValue(fit.value) : QJsonValue()},
                       {QStringLiteral("applied"), fit.status == Status::Fitted ? fit.value : fit.before},
                       {QStringLiteral("figure"), fit.figure >= 0 ? QJsonValue(rowName(r.figures.at(fit.figure))) : QJsonValue()},
                       {QStringLiteral("line"), fit.figure >= 0 ? QJsonValue(r.figures.at(fit.figure).line) : QJsonValue()},
                       {QStringLiteral("floor_ms"), orNull(fit.floorMs)}};
}

} // namespace

double BenchCalibration::predictedMs(const Scenario &s, const BenchFigure &f)
{
    return timeModelMs(s, planTerms(s, f), f);
}

BenchCalibration BenchCalibration::fit(const BenchReading &reading, const Scenario &base)
{
    BenchCalibration c;
    c.before = base;
    if (reading.weights) {
        c.before.weightsBytes = *reading.weights;
        c.before.names.set(Input::Weights, QStringLiteral("llama-bench's size column"));
    }
    if (c.before.gpu.bandwidthBytesPerSecond <= 0)
        throw InputError(QStringLiteral("--gpu"), QStringLiteral("%1 has no memory bandwidth figure, so no time can be predicted: a benchmark "
                                                                 "prints no card; give --gpu with the preset of the card it ran on "
                                                                 "(`headroom presets list`)").arg(c.before.gpu.name.isEmpty() ? QStringLiteral("the card") : c.before.gpu.name));
    if (c.before.model.layers() == 0)
        throw InputError(c.before.field(Input::Model), QStringLiteral("has no layers: a benchmark prints no model shape; give --model with a preset "
                                                                      "id or the model's config.json path"));
    QVector<PlanTerms> terms;
    for (const BenchFigure &f : reading.figures)
        terms << planTerms(c.before, f);
    c.after = c.before;
    fitFractions(c, reading, terms, chosen(reading, Kind::Decode), chosen(reading, Kind::Prefill));
    for (int i = 0; i < reading.figures.size(); ++i) {
        const BenchFigure &f = reading.figures.at(i);
        c.rows << CalibrationRow{rowName(f), f.printed, f.fromMs(timeModelMs(c.before, terms.at(i), f)), f.unit,
                                 f.fromMs(timeModelMs(c.after, terms.at(i), f))};
    }
    c.notes = notesOf(c, reading);
    return c;
}

QJsonObject BenchCalibration::toJson(const BenchReading &reading) const
{
    QJsonArray comparison;
    for (int i = 0; i < rows.size(); ++i) {
        QJsonObject row = rows.at(i).toJson();
        row.insert(QStringLiteral("predicted_after"), orNull(rows.at(i).measured));
        row.insert(QStringLiteral("difference_after"), orNull(rows.at(i).measuredDifference()));
        row.insert(QStringLiteral("line"), reading.figures.at(i).line);
        row.insert(QStringLiteral("fitted"), i == bandwidth.figure || i == compute.figure);
        comparison.append(row);
    }
    QJsonArray taken{QStringLiteral("gpu"), QStringLiteral("model"), QStringLiteral("tp"), QStringLiteral("engine")};
    if (!reading.weights)
        taken.append(QStringLiteral("weights"));
    return QJsonObject{{QStringLiteral("kind"), QStringLiteral("benchmark")},
                       {QStringLiteral("tool"), reading.toolName()},
                       {QStringLiteral("model"), reading.model},
                       {QStringLiteral("lines_read"), reading.linesRead},
                       {QStringLiteral("lines_used"), reading.linesUsed},
                       {QStringLiteral("comparison"), comparison},
                       {QStringLiteral("fit"), QJsonObject{{QStringLiteral("bandwidth_efficiency"), fitJson(bandwidth, reading)},
                                                           {QStringLiteral("compute_utilization"), fitJson(compute, reading)}}},
                       {QStringLiteral("taken_from_scenario"), taken},
                       {QStringLiteral("notes"), QJsonArray::fromStringList(notes)}};
}

} // namespace Headroom
