// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "inputs/scenario.h"
#include "io/benchreading.h"
#include "io/logcalibration.h"

#include <QJsonObject>
#include <QStringList>
#include <QVector>
#include <limits>

namespace Headroom {

/// One achieved fraction fitted to a benchmark's figure (BenchCalibration::fit).
struct FractionFit
{
    enum class Status {
        NoFigure,    ///< the benchmark prints no figure this fraction moves
        Fitted,      ///< `value` in (0, 1] makes the prediction equal the figure
        AboveOne,    ///< the figure needs `value` > 1: faster than the card's peak allows
        Unreachable, ///< no fraction up to 1000 reaches it: the model's floor is `floorMs`
        BelowRange,  ///< slower than the model at a millionth of the peak (`value`)
    };
    Status status = Status::NoFigure;
    double before = 0;  ///< the scenario's fraction
    double value = 0;   ///< the fraction found (Fitted, AboveOne), or the bound passed (BelowRange)
    double floorMs = std::numeric_limits<double>::quiet_NaN(); ///< Unreachable: the prediction at 1000 x the peak, ms
    int figure = -1;    ///< the index in BenchReading::figures fitted, -1 for none
};

/// A benchmark's measured times against Headroom's time model, and the card's achieved
/// fractions fitted to them: Scenario::bandwidthEfficiency so that the predicted decode step
/// (plan/servingestimate.h, decodeStep) at the benchmark's concurrency and mean context equals
/// its inter-token latency (median ITL first, then mean ITL, median and mean TPOT; llama-bench:
/// 1000 / a tg row's t/s at one sequence), and Scenario::computeUtilization so that the
/// predicted time to first token (timeToFirstToken) of its mean prompt equals its TTFT (median
/// first; llama-bench: a pp row's tokens / t/s). Each is a 1-D root of a prediction that falls as
/// the fraction grows, found by bisection on the fraction's logarithm over [1e-6, 1000], never
/// by the formula's terms; the two alternate until both settle (the decode step's compute roof
/// reads the utilization, the prefill's weight read the efficiency). A fraction outside (0, 1]
/// is reported, not clamped, and the scenario keeps its own. When a paste holds several loads,
/// the lowest is fitted (a TTFT under load includes queueing behind others' prefills) and the
/// rest are compared at the fitted fractions.
struct BenchCalibration
{
    /// What the figures are predicted for: the scenario, with llama-bench's size column as its
    /// weights when printed (the file it ran, often quantized).
    Scenario before;
    Scenario after;          ///< `before` with the fractions fitted inside (0, 1]: what Apply makes the scenario
    FractionFit bandwidth;   ///< Scenario::bandwidthEfficiency
    FractionFit compute;     ///< Scenario::computeUtilization
    /// One row per figure: printed = measured (in the figure's unit), predicted = before the
    /// fit, CalibrationRow::measured = predicted after it.
    QVector<CalibrationRow> rows;
    /// What the fit did and assumed, one sentence each: each fraction's fit (or why none), the
    /// inputs taken from the scenario, the reader's notes, a model the benchmark names that the
    /// scenario's is not.
    QStringList notes;

    /// Fits `base`'s fractions to `reading`. Throws InputError naming --gpu when the card has no
    /// bandwidth figure (a custom card), naming the model when it has no layers, and the plan's
    /// own InputError (its field) when the scenario cannot be planned.
    static BenchCalibration fit(const BenchReading &reading, const Scenario &base);

    /// The one call into the time model: figure `f` as `s` predicts it, ms (a decode step of
    /// f.batch sessions of f.tokens each, or the time to the first token of f.tokens), from the
    /// plan's weights and KV bytes per GPU. NaN when the card has no bandwidth figure. Throws the
    /// plan's InputError when `s` cannot be planned.
    static double predictedMs(const Scenario &s, const BenchFigure &f);

    /// The result as JSON (`headroom calibrate --json` on a benchmark): "kind": "benchmark", the
    /// tool, printed model, lines, "comparison" rows (CalibrationRow::toJson, with
    /// "predicted_after" and "difference_after"), "fit" per fraction, "taken_from_scenario", "notes".
    QJsonObject toJson(const BenchReading &reading) const;
};

} // namespace Headroom
