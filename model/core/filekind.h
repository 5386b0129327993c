// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArrayView>
#include <QString>
#include <initializer_list>

namespace Headroom {

/// What a file handed to one of Headroom's readers holds, told by its content (never its
/// name), so that a reader given another reader's file says which it is and how to read it
/// ("x.jsonl is a trace (JSON lines), not a scenario: use --distribution trace:x.jsonl")
/// instead of a parse error ("damaged: garbage at the end").
namespace FileKind {

enum class Kind {
    Unknown,        ///< none of the below: the reader's own checks say what is wrong
    Scenario,       ///< {"format": "headroom-scenario"}
    PlanJson,       ///< `plan --json` output (an "inputs" echo with the figures), which opens as a scenario
    Config,         ///< a HuggingFace config.json (num_hidden_layers, architectures or model_type)
    PresetBundle,   ///< {"format": "headroom-presets"}
    TraceCsv,       ///< a trace as CSV: a header naming TIMESTAMP, ContextTokens or "Request tokens"
    TraceJsonLines, ///< a trace as JSON lines: one object per line with input_length or hash_ids
    TraceLengths,   ///< a trace as one length per line (an optional header word, then whole numbers)
    EngineLog,      ///< an engine's start-up log (vLLM, SGLang, llama.cpp, Ollama, TensorRT-LLM), by words of its lines
    Benchmark,      ///< a benchmark's printed result (vllm bench serve, sglang.bench_serving, llama-bench)
    Pdf,            ///< "%PDF-" (a report)
};

/// The kind of the file whose bytes are `head` (the whole file or its start: only the first
/// 64 KiB are read; a UTF-8 byte-order mark is skipped). Unknown when nothing above fits.
Kind detect(QByteArrayView head);

/// The kind in words, with its article: "a trace (JSON lines)", "a model's config.json".
QString what(Kind kind);

/// A trace's format in a word or two: "CSV", "JSON lines", "one length per line"; empty for
/// a kind that is no trace.
QString traceFormat(Kind kind);

/// Throws InputError(field) when `head`, the start of the file at `path`, is of a known kind
/// outside `accepted`: "<path> is <what>, not <expected>: use <the flag or command that reads
/// it> (in the window, <the menu item>)". Returns when the kind is accepted or Unknown.
void expect(const QString &path, QByteArrayView head, std::initializer_list<Kind> accepted, const QString &expected, const QString &field);

} // namespace FileKind
} // namespace Headroom
