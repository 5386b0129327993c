// SPDX-License-Identifier: GPL-3.0-or-later
#include "engines/ollama.h"
#include "engines/llamacpp.h"

#include <QJsonObject>

namespace Headroom {

QVector<KvDtypeSupport> OllamaRule::kvDtypes() const
{
    // A bf16 model's cache is kept in f16: the same two bytes a value.
    return {{Dtype::FP16, "f16", {}, false}, {Dtype::BF16, "f16", {}, false}, {Dtype::Q8_0, "q8_0", {0, 5}, false},
            {Dtype::Q4_0, "q4_0", {0, 5}, false}};
}

QString OllamaRule::kvDtypeSource() const
{
    return QStringLiteral("OLLAMA_KV_CACHE_TYPE: fs/ggml/ggml.go SupportsKVCacheType (f16, q8_0, q4_0; ollama/ollama commit fb30760, "
                          "2026); the quantized types from 0.5.0");
}

QString OllamaRule::describe() const
{
    return QStringLiteral("Ollama: memory.required.kv = num_ctx × num_parallel per global layer, "
                          "num_parallel × window + batch per sliding layer (llm/memory.go)");
}

EngineFigures OllamaRule::figures(const Scenario &s, const KvCost &given, qint64) const
{
    EngineFigures f;
    // The estimate counts q8_0 as 1 B and q4_0 as 0.5 B per value, not as ggml blocks
    // (llm/memory.go: kv = ... x bytes per element; E20: q8_0 at 1.0 B).
    const Dtype d = s.effectiveKvDtype();
    const KvCost cost = d == Dtype::Q8_0 || d == Dtype::Q4_0
        ? KvCost(s.model, d == Dtype::Q8_0 ? Dtype::INT8 : Dtype::INT4, s.tp, s.blockSize, s.kvHeadsOverride, s.kvCostNames())
        : given;
    const EngineVersion v = version(s);
    // 0.6.5 and later size sliding layers at num_parallel x window + batch (E14);
    // 0.6.0 sized every layer at the full context (E20).
    const bool slidingRule = v.atLeast(0, 6, 5);
    const EngineSettings &e = s.engineSettings;
    const qint64 seqs = std::max(1, e.nSeq);
    const QString flag = s.field(e.nCtx ? Input::NCtx : Input::MaxModelLen), model = s.field(Input::Model), nSeq = s.field(Input::NSeq);
    // num_ctx x num_parallel: the larger of the two is named when the product overflows.
    const qint64 cells = Units::mul(e.nCtx.value_or(s.maxModelLen.value_or(Ollama::defaultContext)), flag, seqs, nSeq, "token count");
    qint64 kv = 0, state = 0;
    for (const GroupCost &c : cost.groups()) {
        if (c.group.kind == LayerKind::Recurrent) {
            state = Units::add(state, Units::mul(Units::mul(c.stateBytesPerLayer, c.group.count, model), model, seqs, nSeq), nSeq);
            continue;
        }
        qint64 held = cells;
        if (c.group.kind == LayerKind::SlidingWindow && slidingRule) {
            // gpt-oss: Ollama's estimate sizes the sliding layers as if the window were 4096
            // (E19: 300 MiB for gpt-oss:20b at num_ctx 8192, not the 128-token window).
            const qint64 window = s.model.modelType == QLatin1String("gpt_oss") ? std::max<qint64>(c.group.window, Ollama::gptOssSlidingCells)
                                                                               : c.group.window;
            held = EngineMath::windowCells(window, seqs, e.nBatch, cells, 1);
        }
        kv = Units::add(kv, Units::mul(held, flag, Units::mul(c.bytesPerTokenPerLayer, c.group.count, model), model), flag);
    }
    f.recurrentStateBytes = state;
    f.kvSelfBytes = kv;
    f.kvCacheBytes = kv;
    f.kvCacheTokens = cells;
    f.maxModelLen = cells / seqs;
    f.maxConcurrency = double(seqs);
    f.predicts = QStringList{QStringLiteral("memory.required.kv")};
    f.note = QStringLiteral("Ollama's estimate, before it loads the model; whole model, all GPUs.");
    return f;
}

void OllamaRule::addJson(const EngineFigures &f, QJsonObject &o) const
{
    EngineMath::addKvSelfJson(f, o);
}

std::optional<RunningCap> OllamaRule::runningCap(const Scenario &s) const
{
    return LlamaCpp::slotCap(s); // num_parallel slots of llama.cpp's server
}

AdmissionRule OllamaRule::admission(const Scenario &s) const
{
    // Ollama runs llama.cpp's server: its num_ctx x num_parallel cells, split the same way.
    return LlamaCpp::slotAdmission(title(), s);
}

QStringList OllamaRule::derivation(const Scenario &, const EngineFigures &e, UnitSystem) const
{
    return {EngineMath::kvSelfLine(QStringLiteral("Ollama memory.required.kv"), e)};
}

void OllamaRule::addLogPatterns(QVector<LogPattern> &p, LogReading &r, const QString &field) const
{
    using namespace LogParse;
    // server.go / memory.go: msg="offload to cuda" ... memory.required.kv="992.0 MiB" (sizes as
    // Go's format.HumanBytes2 prints them: binary units, "B" below a KiB), and the runner's
    // command line: msg="starting llama server" cmd="... --ctx-size 8192 --batch-size 512 ...
    // --parallel 1 ...", where --ctx-size is num_ctx x num_parallel (server.go).
    // The start of a run: the server's "Listening on 127.0.0.1:11434 (version 0.11.4)" (routes.go).
    // Each model load prints its estimate before "starting llama server", so that line is no start.
    p << LogPattern{rx(QStringLiteral("Listening on \\S+ \\(version ")), [&r](const QRegularExpressionMatch &, int) { r.engine = Engine::Ollama; }, Engine::Ollama}
      << LogPattern{rx(QStringLiteral("memory\\.required\\.kv=\"?") + number() + QStringLiteral("\\s*(GiB|MiB|KiB|B)\\b")),
                    [&r, field](const QRegularExpressionMatch &m, int l) { r.engine = Engine::Ollama; r.requiredKv = bytes(m.captured(1), m.captured(2), l, field); }}
      << LogPattern{rx(QStringLiteral("--ctx-size (-?\\d+)")), [&r, field](const QRegularExpressionMatch &m, int l) { r.ctxSize = shape(m.captured(1), l, field, "--ctx-size"); }}
      << LogPattern{rx(QStringLiteral("--parallel (-?\\d+)")), [&r, field](const QRegularExpressionMatch &m, int l) { r.nSeq = shape(m.captured(1), l, field, "--parallel"); }}
      << LogPattern{rx(QStringLiteral("--batch-size (-?\\d+)")), [&r, field](const QRegularExpressionMatch &m, int l) { r.nBatch = shape(m.captured(1), l, field, "--batch-size"); }};
}

void OllamaRule::applyLog(const LogReading &r, Scenario &s) const
{
    EngineSettings &e = s.engineSettings;
    if (r.nSeq)
        e.nSeq = *r.nSeq;
    if (r.nBatch)
        e.nBatch = *r.nBatch;
    // The runner's cells are num_ctx x num_parallel: num_ctx is their share per sequence.
    if (r.ctxSize)
        e.nCtx = std::max<qint64>(1, *r.ctxSize / std::max(1, e.nSeq));
}

} // namespace Headroom
