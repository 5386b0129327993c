// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <QStringList>
#include <QVector>
#include <optional>

namespace Headroom {

/// One time a benchmark measured, in the terms Headroom's time model predicts it: a decode
/// step (TPOT or ITL of a serving benchmark, a llama-bench tg row) or a prefill (TTFT, a
/// llama-bench pp row), with the batch and the tokens it was measured at.
struct BenchFigure
{
    enum class Kind { Decode, Prefill };
    Kind kind = Kind::Decode;
    QString figure;      ///< as printed: "Median ITL (ms)", "tg128 @ d4096"
    QString load;        ///< the run it belongs to when a paste holds several: "concurrency 8"; empty for llama-bench
    double printed = 0;  ///< the value as printed, in `unit`
    QString unit;        ///< "ms" (serving benchmarks) or "t/s" (llama-bench)
    double batch = 1;    ///< sessions decoding together: the benchmark's concurrency (llama-bench: 1)
    QString batchBasis;  ///< where `batch` comes from, one phrase ("Maximum request concurrency: 8, line 4")
    /// Decode: the mean resident context of a request while it decodes, mean prompt + half the
    /// mean output (llama-bench: depth + half of tg's tokens). Prefill: the prompt's tokens.
    double tokens = 0;
    int line = 0;        ///< 1-based line the value is printed on
    /// Preference among the figures of one kind at one load, 0 first: the median inter-token
    /// latency is the typical decode step, the mean carries the steps that also ran another
    /// request's prefill; llama-bench's rows at the least depth first.
    int rank = 0;
    /// `ms` (a decode step, or a time to the first token) in this figure's unit: ms as is; t/s as
    /// tokens per second (1000 / ms for a decode step, tokens x 1000 / ms for a prefill).
    double fromMs(double ms) const;
    /// The printed value in milliseconds (fromMs's inverse).
    double ms() const { return fromMs(printed); }
};

/// The result a benchmark printed, read from its text:
/// - `vllm bench serve` / benchmarks/benchmark_serving.py: the block under
///   "============ Serving Benchmark Result ============" (vllm/benchmarks/serve.py, benchmark(),
///   vllm-project/vllm@009e6d4a: "Successful requests:", "Maximum request concurrency:", "Total input
///   tokens:", "Total generated tokens:", "Output token throughput (tok/s):", "Mean TTFT (ms):",
///   "Median TTFT (ms):", "Mean TPOT (ms):", "Median TPOT (ms):", "Mean ITL (ms):", "Median ITL (ms):"),
///   with "Maximum request concurrency: N" also printed before the block;
/// - `python -m sglang.bench_serving`: the same header with its own lines (python/sglang/bench_serving.py,
///   sgl-project/sglang@0033168f: "Backend:", "Max request concurrency:" ("not set"), "Concurrency:",
///   the TTFT and ITL lines, "Mean TPOT (ms):" in the versions that print it);
/// - a `llama-bench` markdown table (tools/llama-bench/llama-bench.cpp, markdown_printer,
///   ggml-org/llama.cpp@050fc7f3: columns model | size | params | backend | ... | test | t/s, tests
///   "pp512", "tg128", "tg128 @ d4096" ("pp 512", "tg 128" before), t/s "127.43 ± 0.18").
struct BenchReading
{
    enum class Tool { VllmServe, SglangServe, LlamaBench };
    Tool tool = Tool::VllmServe;
    /// The model as printed: vLLM's and SGLang's argument echo (Namespace(... model='X' ...)),
    /// llama-bench's model column ("llama 7B Q4_0", a description, not a name); empty when none.
    QString model;
    std::optional<qint64> weights; ///< llama-bench's size column: the model file as loaded, bytes
    QVector<BenchFigure> figures;  ///< every time read, in the order printed
    QStringList notes;             ///< what the reader left out or chose, one sentence each
    int linesRead = 0;
    int linesUsed = 0;             ///< lines a figure or a setting was read from

    /// The tool's name as its users type it ("vllm bench serve", "sglang.bench_serving", "llama-bench").
    QString toolName() const;

    /// True when `text` holds a benchmark's result rather than a start-up log: a "Serving
    /// Benchmark Result" header, or a table row holding both a model and a test column.
    static bool recognises(const QString &text);

    /// Reads `text`. Throws InputError(field) naming the line ("line 12: ...") when a value of a
    /// line it reads is not a number (or nan: left out with a note), a result block lacks the
    /// request and token totals, a table lacks its t/s column, a row's cells or test are
    /// malformed, the table holds a second model, both kinds of result are pasted, or no time
    /// (TPOT, ITL, TTFT, a pp or tg row) is left to compare.
    static BenchReading read(const QString &text, const QString &field);
};

} // namespace Headroom
