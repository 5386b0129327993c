// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/inputranges.h"

#include "inputs/engineprofile.h"

#include <QRegularExpression>
#include <QString>
#include <QVector>
#include <functional>
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
    std::optional<qint64> maxNumSeqs;   ///< vLLM max_num_seqs (its non-default args)
    std::optional<qint64> maxNumBatchedTokens; ///< vLLM max_num_batched_tokens (the scheduler's chunked-prefill line, its non-default args)
    std::optional<qint64> weights;      ///< per GPU: vLLM "model weights take" / "Model loading took", SGLang mem usage
    std::optional<qint64> nonTorch;
    std::optional<qint64> activationPeak;
    std::optional<qint64> cudaGraph;
    std::optional<qint64> kvBudget;     ///< per GPU: "Available KV cache memory" / "reserved for KV Cache" / SGLang's K size + V size
    std::optional<qint64> numBlocks;    ///< "# GPU blocks"
    std::optional<qint64> kvTokens;     ///< "GPU KV cache size" / SGLang "#tokens"
    std::optional<double> maxConcurrency;
    std::optional<qint64> freeBefore;   ///< SGLang avail mem before loading
    std::optional<qint64> freeAfter;    ///< SGLang avail mem after loading
    std::optional<qint64> freeAfterPool; ///< SGLang "Memory pool end. avail mem": free per GPU once the KV pool is allocated
    std::optional<qint64> graphMemory;  ///< SGLang "Capture cuda graph end ... mem usage": what the CUDA graphs took per GPU
    std::optional<double> memFractionStatic;
    std::optional<qint64> kvSelf;       ///< llama.cpp KV self size (K + V), every cache of the last context
    std::optional<qint64> kvCells;      ///< llama.cpp llama_kv_cache_init "kv_size = N" / the largest cache's cells
    qint64 kvBuffers = 0;               ///< llama.cpp: the per-device "KV buffer size" lines of the last context, summed
    qint64 kvClosed = 0;                ///< llama.cpp: caches of the last context closed by a size line ("KV self size", "size = X MiB (N cells")
    qint64 kvOpen = 0;                  ///< llama.cpp: buffer lines since the last size line (a cache whose size line is not pasted)
    int kvCaches = 0;                   ///< llama.cpp: caches of the last context with their own size line (2 for iSWA)
    std::optional<qint64> requiredKv;   ///< Ollama's estimate memory.required.kv (whole model)
    std::optional<qint64> ctxSize;      ///< the runner's --ctx-size (Ollama: num_ctx x num_parallel)
    std::optional<int> nBatch;          ///< the runner's --batch-size (Ollama), llama.cpp's n_ubatch
    std::optional<double> freeGpuMemoryFraction; ///< TensorRT-LLM's free_gpu_memory_fraction ("fraction is set 0.9")
    std::optional<int> tokensPerBlock;  ///< TensorRT-LLM tokens per block
    std::optional<qint64> kvNeeded;     ///< vLLM: "X GiB KV cache is needed" for one request of max_model_len, per GPU
    std::optional<qint64> estimatedMaxLen; ///< vLLM: "the estimated maximum model length is N"
    int refusalLine = 0;                ///< vLLM: the line refusing max_model_len (0: none)
    /// What the log shows of a failed start, one sentence each ("line 12: vLLM found no
    /// memory for the KV cache ..."), in order, one per kind (ranks repeat them).
    QStringList failures;
    QStringList failureKinds;           ///< the kind of each failure, so a repeated one is kept once
    /// True when a KV-cache size was read (a budget, tokens, blocks, KV self, Ollama's estimate).
    bool hasKvFigure() const { return kvBudget || kvTokens || numBlocks || kvSelf || requiredKv; }
    /// True when a figure a run measures was read (beyond the configuration a start-up banner
    /// prints): memory, weights, a KV size, a shape the loader printed, a failure.
    bool hasMeasurements() const
    {
        return hasKvFigure() || totalMemory || weights || freeBefore || freeAfter || kvCells || layers || kvNeeded || activationPeak
            || !failures.isEmpty() || refusalLine;
    }
    /// Adds a failure of `kind` unless one of that kind is already held.
    void fail(const QString &kind, const QString &sentence)
    {
        if (!failureKinds.contains(kind)) {
            failureKinds << kind;
            failures << sentence;
        }
    }
    std::optional<qint64> recurrentState; ///< llama.cpp R + S
    std::optional<int> layers;          ///< llama.cpp n_layer
    std::optional<int> kvHeads;         ///< llama.cpp n_head_kv
    std::optional<int> heads;           ///< llama.cpp n_head
    std::optional<int> headDim;         ///< llama.cpp n_embd_head_k
    std::optional<int> nSeq;            ///< llama.cpp n_seq_max
    /// Each figure's name in errors: the log, the line and the engine's own words
    /// ("LOGFILE line 12 (tensor_parallel_size=3)"), set by LogCalibration::read.
    InputNames names;
    /// What the reader chose, one sentence each ("The log holds 2 start-ups ...: the last ... was
    /// read"), said among the warnings.
    QStringList notes;
    int linesRead = 0;                  ///< lines of the log
    int linesUsed = 0;                  ///< lines a figure was read from
};

/// One start-up line an engine prints: the expression and what it fills in.
/// `take` gets the match and the 1-based line number (for error messages).
/// `startsRun`: the engine that prints this line once at the start of a run (vLLM's
/// "Initializing a V1 LLM engine", SGLang's server_args, llama.cpp's "build:"), so its log
/// holding it again after figures were read holds a restart, and the reader keeps one
/// start-up; Engine::Plain for every other line.
struct LogPattern
{
    QRegularExpression re;
    std::function<void(const QRegularExpressionMatch &, int)> take;
    Engine startsRun = Engine::Plain;
};

/// Parsers for the figures of log lines. Each throws InputError(field) with
/// "line N: ..." for a malformed figure.
namespace LogParse {
/// A case-insensitive expression.
QRegularExpression rx(const QString &pattern);
/// The text every match of `pattern` starts with, after a leading \b: its literal
/// characters up to the first class, group, quantified character or other operator
/// ("Available KV cache memory: " of "Available KV cache memory: ([0-9.]+)", "n_layer" of
/// "\\bn_layer\\s+="), empty when it starts with none or has a top-level alternative.
/// A line without it (compared without case) cannot match, so a reader skips the expression.
QString leadingText(const QString &pattern);
/// A decimal number as the engines print it, e.g. "6.51".
QString number();
/// A memory unit after a number: GiB, GB (SGLang's GB are GiB), MiB, MB.
QString unit();
/// What may stand between a figure's name and its value in the engines' own layouts:
/// "name: 6.51 GiB", "name=3.81GiB", "name (23.58GiB)", "name takes 0.20GiB",
/// "name is 1.57GiB", or "name     14.96GiB" (vLLM's profile table).
QString separator();
/// A memory figure as printed: number + unit (GiB, MiB, KiB, B; "GB" taken as GiB), bytes.
qint64 bytes(const QString &number, const QString &unit, int line, const QString &field);
/// A whole count, separators allowed where Python's f"{n:,}" puts them ("42,656"); throws
/// InputError(field) naming the line when negative, misgrouped ("1,2,,3") or not a count.
qint64 count(QString number, int line, const QString &field);
/// A pool's token count printed only once the engine sized its pool (SGLang's "#tokens",
/// "max_total_num_tokens", each TP rank printing its own): `count` that is also at least 1,
/// so a damaged rank's 0 is refused at its line rather than hidden by the next rank's figure.
/// Throws InputError(field) naming the line and `name`.
qint64 poolTokens(const QString &number, int line, const QString &field, const char *name);
/// A shape figure (layers, heads, head_dim, TP, n_ctx): a whole number from 1 to 10^8.
int shape(const QString &number, int line, const QString &field, const char *name);
/// A printed decimal ("0.9", "1.30"); throws InputError(field) naming the line unless finite and at least 0.
double real(const QString &number, int line, const QString &field);
/// A printed setting (gpu_memory_utilization, mem_fraction_static) under the same range rule
/// as its flag and file field (core/inputranges.h); throws InputError(field) naming the line.
double setting(RealInput input, const QString &number, int line, const QString &field);
} // namespace LogParse

} // namespace Headroom
