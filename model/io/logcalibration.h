// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "engines/enginesettingfields.h"
#include "engines/logreading.h"
#include "plan/capacityresult.h"
#include "inputs/scenario.h"

#include <QJsonObject>
#include <QString>
#include <QVector>
#include <limits>
#include <optional>

namespace Headroom {

/// One printed figure beside Headroom's prediction.
struct CalibrationRow
{
    QString figure;      ///< e.g. "GPU KV cache size (tokens)"
    double printed = 0;
    double predicted = 0; ///< before hardware: the log's settings, none of its measured figures
    QString unit;        ///< "tokens", "GiB", "MiB", "x", "blocks"
    /// The same figure from the log's measured terms (the budget from the measured weights and
    /// workspace; a count from the printed budget): NaN when the log measured too little. For a
    /// benchmark (BenchCalibration), the figure predicted at the fitted fractions.
    double measured = std::numeric_limits<double>::quiet_NaN();
    /// A value of this row with its unit: counts whole with separators, sizes to 2 decimals.
    QString format(double value) const;
    /// predicted - printed, relative to printed (NaN when printed is 0: no ratio).
    double difference() const { return relative(predicted); }
    /// measured - printed, relative to printed (NaN when either is missing or printed is 0).
    double measuredDifference() const { return relative(measured); }
    /// A relative difference as shown: "-3.25%", or "n/a" when not finite.
    static QString formatDifference(double difference);
    /// The row as JSON: figure, printed, predicted, from_measured and difference (null when not
    /// finite), unit.
    QJsonObject toJson() const;

private:
    double relative(double value) const { return printed != 0 ? (value - printed) / printed : std::numeric_limits<double>::quiet_NaN(); }
};

/// Reads vLLM (V0 and V1), SGLang and llama.cpp start-up logs. Each figure
/// comes from the line the engine prints it on, in the units it prints
/// (vLLM GiB; SGLang "GB" that are GiB; llama.cpp MiB), e.g.
/// "Available KV cache memory: 6.51 GiB", "GPU KV cache size: 42,656 tokens",
/// "KV Cache is allocated. #tokens: 46611", "KV self size = 1024.00 MiB".
class LogCalibration
{
public:
    /// Parses `text`. Throws InputError(field) when the text is empty, no engine
    /// line is found ("... read N lines, stopped at line N") or a recognised
    /// line holds a malformed figure ("line 12: ...").
    static LogReading read(const QString &text, const QString &field);

    /// `base` with the log's settings only, what a user knows before the hardware runs:
    /// engine and version, TP, lengths, cache type, utilization, the engine's own settings
    /// (EngineRule::applyLog); none of the figures the run measured.
    static Scenario applySettings(const LogReading &reading, Scenario base);
    /// The engine settings the log prints (its utilization or memory fraction, max_model_len,
    /// max_num_seqs, n_ctx, its release, ...), which applySettings takes from it; every other
    /// setting of the engine (EngineSettingFields::of) stays the scenario's.
    static QVector<EngineSettingField> printedSettings(const LogReading &reading);
    /// `base` with the log's measured machine applied: applySettings, then memory, weights,
    /// the measured workspace terms and the printed budget, so later what-ifs start from the
    /// real machine.
    static Scenario apply(const LogReading &reading, Scenario base);

    /// The printed figures beside what Headroom predicts for `base` (the scenario before the
    /// log) with the log's settings and none of its measurements (applySettings), and, in
    /// CalibrationRow::measured, the same figures from the log's measured terms (apply). A
    /// model without a parameter count takes the log's measured weights in the prediction.
    /// Throws the plan's InputError (its field, e.g. --tp) when either cannot be planned.
    static QVector<CalibrationRow> compare(const LogReading &reading, const Scenario &base);

    /// True when a model name a log prints ("meta-llama/Llama-3.1-8B-Instruct") names the
    /// model `hfId` ("meta-llama/Llama-3.1-8B"): the last path parts equal, compared without
    /// case and without the fine-tune suffixes that keep the base's config.json (-Instruct,
    /// -chat, -it, -hf, -base, -pt).
    static bool namesModel(const QString &printed, const QString &hfId);

    /// What the reader assumed or could not match (a different model, TP or
    /// card than the log's; large differences), one sentence each.
    static QStringList warnings(const LogReading &reading, const Scenario &calibrated, const QVector<CalibrationRow> &rows);

    /// What side pools from the flags (a draft model or MTP / EAGLE layers, their
    /// lookahead slots, LoRA slots) do to the comparison, one sentence, or empty when
    /// none is on: the bytes per GPU each takes off the log's measured terms (binary
    /// units and exact bytes) with the total the predicted KV cache memory falls by,
    /// the per-token and per-session costs they add to the counts, and that the log's
    /// figures already hold the pools its own run loaded (vLLM measures the target, its
    /// LoRA wrapping and the drafter together as "Model loading took":
    /// vllm/v1/worker/gpu_model_runner.py, load_model). One of warnings().
    static QString sidePoolNote(const LogReading &reading, const Scenario &calibrated);

    /// Rows and readings as JSON (`headroom calibrate --json`).
    static QJsonObject toJson(const LogReading &reading, const QVector<CalibrationRow> &rows);
};

} // namespace Headroom
