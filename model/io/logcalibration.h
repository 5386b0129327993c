// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "plan/capacityresult.h"
#include "inputs/scenario.h"

#include <QJsonObject>
#include <QString>
#include <QVector>
#include <limits>
#include <optional>

namespace Headroom {

/// The figures an engine printed at start-up, read from its log.
struct LogReading
{
    Engine engine = Engine::Plain;
    QString model;                      ///< the model path/name as printed (vLLM model=, SGLang model_path=, llama.cpp general.name)
    QString version;                    ///< engine version when printed, e.g. "0.10.1"
    std::optional<int> tp;              ///< tensor_parallel_size / tp_size
    std::optional<qint64> maxModelLen;  ///< max_seq_len / context_length / n_ctx
    std::optional<QString> kvDtype;     ///< kv_cache_dtype, or llama.cpp's K type
    std::optional<qint64> totalMemory;  ///< vLLM total_gpu_memory
    std::optional<double> utilization;  ///< vLLM gpu_memory_utilization
    std::optional<qint64> weights;      ///< per GPU: vLLM "model weights take" / "Model loading took", SGLang mem usage
    std::optional<qint64> nonTorch;
    std::optional<qint64> activationPeak;
    std::optional<qint64> cudaGraph;
    std::optional<qint64> kvBudget;     ///< per GPU: "Available KV cache memory" / "reserved for KV Cache"
    std::optional<qint64> numBlocks;    ///< "# GPU blocks"
    std::optional<qint64> kvTokens;     ///< "GPU KV cache size" / SGLang "#tokens"
    std::optional<double> maxConcurrency;
    std::optional<qint64> freeBefore;   ///< SGLang avail mem before loading
    std::optional<qint64> freeAfter;    ///< SGLang avail mem after loading
    std::optional<double> memFractionStatic;
    std::optional<qint64> kvSelf;       ///< llama.cpp KV self size (K + V)
    std::optional<qint64> recurrentState; ///< llama.cpp R + S
    std::optional<int> layers;          ///< llama.cpp n_layer
    std::optional<int> kvHeads;         ///< llama.cpp n_head_kv
    std::optional<int> heads;           ///< llama.cpp n_head
    std::optional<int> headDim;         ///< llama.cpp n_embd_head_k
    std::optional<int> nSeq;            ///< llama.cpp n_seq_max
    int linesRead = 0;                  ///< lines of the log
    int linesUsed = 0;                  ///< lines a figure was read from
};

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

    /// Rows and readings as JSON (`headroom calibrate --json`).
    static QJsonObject toJson(const LogReading &reading, const QVector<CalibrationRow> &rows);
};

} // namespace Headroom
