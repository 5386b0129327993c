// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

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
    double predicted = 0;
    QString unit;        ///< "tokens", "GiB", "MiB", "x", "blocks"
    /// A value of this row with its unit: counts whole with separators, sizes to 2 decimals.
    QString format(double value) const;
    /// predicted - printed, relative to printed (NaN when printed is 0: no ratio).
    double difference() const { return printed != 0 ? (predicted - printed) / printed : std::numeric_limits<double>::quiet_NaN(); }
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

    /// `base` with the log's measured machine applied: engine, memory,
    /// utilization, weights, the measured workspace terms, TP, lengths and
    /// cache type, so later what-ifs start from the real machine.
    static Scenario apply(const LogReading &reading, Scenario base);

    /// The printed figures beside what the calibrated scenario predicts: the
    /// budget from the measured terms, and the counts from the printed budget.
    /// Throws the plan's InputError (its field, e.g. --tp) when the calibrated
    /// scenario cannot be planned.
    static QVector<CalibrationRow> compare(const LogReading &reading, const Scenario &calibrated);

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
