// SPDX-License-Identifier: GPL-3.0-or-later
#include "engines/llamacpp.h"

#include <QJsonObject>

namespace Headroom {

QVector<KvDtypeSupport> LlamaCppRule::kvDtypes() const
{
    // ggml dequantizes its blocks in its own kernels: no format needs the card's support.
    return {{Dtype::FP32, "f32", {}, false},   {Dtype::BF16, "bf16", {}, false}, {Dtype::FP16, "f16", {}, false},
            {Dtype::Q8_0, "q8_0", {}, false}, {Dtype::Q4_0, "q4_0", {}, false}};
}

QString LlamaCppRule::kvDtypeSource() const
{
    return QStringLiteral("--cache-type-k / --cache-type-v: common/arg.cpp kv_cache_types (f32, f16, bf16, q8_0, q4_0, q4_1, "
                          "iq4_nl, q5_0, q5_1; ggml-org/llama.cpp#10806, December 2024)");
}

QString LlamaCppRule::describe() const
{
    return QStringLiteral("llama.cpp: n_ctx cells up front, padded to 256; q8_0/q4_0 as ggml blocks "
                          "(src/llama-kv-cache.cpp)");
}

EngineFigures LlamaCppRule::figures(const Scenario &s, const KvCost &cost, qint64) const
{
    EngineFigures f;
    const EngineSettings &e = s.engineSettings;
    const qint64 seqs = std::max(1, e.nSeq);
    // The cells come from --n-ctx, else --max-model-len, else llama.cpp's default.
    const QString flag = s.field(e.nCtx ? Input::NCtx : Input::MaxModelLen), model = s.field(Input::Model), nSeq = s.field(Input::NSeq);
    const qint64 cells = EngineMath::padTo(e.nCtx.value_or(s.maxModelLen.value_or(LlamaCpp::defaultContext)), LlamaCpp::contextPadding, flag);
    qint64 kv = 0, state = 0;
    for (const GroupCost &c : cost.groups()) {
        qint64 held = cells;
        if (c.group.kind == LayerKind::Recurrent) {
            state = Units::add(state, Units::mul(Units::mul(c.stateBytesPerLayer, c.group.count, model), model, seqs, nSeq), nSeq);
            continue;
        }
        if (c.group.kind == LayerKind::SlidingWindow) // llama-kv-cache-iswa.cpp: min(n_ctx, pad(n_swa x n_seq + n_ubatch, 256))
            held = EngineMath::windowCells(c.group.window, seqs, e.nBatch, cells, LlamaCpp::contextPadding);
        // The larger of the cells and the group's bytes per token is to blame for an overflow.
        kv = Units::add(kv, Units::mul(held, flag, Units::mul(c.bytesPerTokenPerLayer, c.group.count, model), model), flag);
    }
    f.recurrentStateBytes = state;
    f.kvSelfBytes = kv;
    f.kvCacheBytes = kv;
    f.kvCacheTokens = cells;
    f.maxModelLen = cells / seqs;
    f.maxConcurrency = double(seqs);
    f.predicts = QStringList{QStringLiteral("KV self size (K + V)"), QStringLiteral("n_ctx"),
                             QStringLiteral("recurrent state buffer (R + S, f32)")};
    f.note = QStringLiteral("Whole model; llama.cpp splits layers, not heads, across GPUs. Each of %1 "
                            "sequence(s) gets n_ctx / n_seq cells unless the cache is unified.").arg(seqs);
    return f;
}

void LlamaCppRule::addJson(const EngineFigures &f, QJsonObject &o) const
{
    EngineMath::addKvSelfJson(f, o);
}

std::optional<RunningCap> LlamaCppRule::runningCap(const Scenario &s) const
{
    return LlamaCpp::slotCap(s);
}

std::optional<RunningCap> LlamaCpp::slotCap(const Scenario &s)
{
    // Once n_ctx is set the server runs n_seq slots (--parallel), one sequence each
    // (tools/server/server.cpp); without it the sessions are counted against the memory.
    if (!s.engineSettings.nCtx)
        return std::nullopt;
    return RunningCap{s.engineSettings.nSeq, QStringLiteral("n_seq %1 (--parallel)").arg(Units::formatCount(s.engineSettings.nSeq))};
}

AdmissionRule LlamaCppRule::admission(const Scenario &s) const
{
    return LlamaCpp::slotAdmission(title(), s);
}

AdmissionRule LlamaCpp::slotAdmission(const QString &title, const Scenario &s)
{
    // llama.cpp server: n_ctx cells allocated at start, split over n_seq slots (--parallel);
    // each slot holds at most n_ctx / n_seq tokens (tools/server/server.cpp, n_ctx_slot).
    return {QStringLiteral("slots"),
            QStringLiteral("%1 allocates n_ctx cells at start and splits them over n_seq slots (--parallel), each holding at most "
                           "n_ctx / n_seq tokens; %2")
                .arg(title, s.engineSettings.nCtx ? QStringLiteral("the sessions here are held to its n_seq slots.")
                                                  : QStringLiteral("with no --n-ctx given, the sessions here are counted against the memory, "
                                                                   "not the slots: set --n-ctx and --n-seq to the sessions you run.")),
            std::nullopt};
}

QStringList LlamaCppRule::derivation(const Scenario &, const EngineFigures &e, UnitSystem) const
{
    return {EngineMath::kvSelfLine(QStringLiteral("llama.cpp KV self size"), e)};
}

void LlamaCppRule::addLogPatterns(QVector<LogPattern> &p, LogReading &r, const QString &field) const
{
    using namespace LogParse;
    const QString num = number(), gib = unit();
    auto mem = [field](const QRegularExpressionMatch &m, int cap, int line) { return bytes(m.captured(cap), m.captured(cap + 1), line, field); };
    auto shapeAt = [field](const QRegularExpressionMatch &m, int l, const char *name) { return shape(m.captured(1), l, field, name); };
    // The KV self size of the last context: each cache prints its per-device "KV buffer size" lines
    // and then its own size line ("llama_kv_cache: size = 2176.00 MiB (262144 cells, 8 layers,
    // 1/1 seqs)"; iSWA models have two caches, src/llama-kv-cache-iswa.cpp), or older builds one
    // "KV self size" line for the whole context. Buffers after the last size line are a cache
    // whose size line is not in the paste. A new "n_ctx =" line starts a new context (a restart,
    // or the two runs of a diff), and the figures of the one before it are dropped.
    auto total = [&r, field]() { r.kvSelf = Units::add(r.kvClosed, r.kvOpen, field); };
    // The start of a run: every llama.cpp program prints its build first (common/common.cpp
    // "build: 4462 (c05e8c99) with cc ...", older "main: build = 1 (5b7b0ac)").
    p << LogPattern{rx(QStringLiteral("\\bbuild(?::| =) \\d+ \\(")), [&r](const QRegularExpressionMatch &, int) { r.engine = Engine::LlamaCpp; }, Engine::LlamaCpp}
      << LogPattern{rx(QStringLiteral("general\\.name\\s+(?:str\\s+)?=\\s+(.+)$")), [&r](const QRegularExpressionMatch &m, int) { if (r.model.isEmpty()) r.model = m.captured(1).trimmed(); }}
      << LogPattern{rx(QStringLiteral("\\bn_layer\\s+=\\s+(-?\\d+)")), [&r, shapeAt](const QRegularExpressionMatch &m, int l) { r.engine = Engine::LlamaCpp; r.layers = shapeAt(m, l, "n_layer"); }}
      << LogPattern{rx(QStringLiteral("\\bn_head\\s+=\\s+(-?\\d+)")), [&r, shapeAt](const QRegularExpressionMatch &m, int l) { r.heads = shapeAt(m, l, "n_head"); }}
      << LogPattern{rx(QStringLiteral("\\bn_head_kv\\s+=\\s+(-?\\d+)")), [&r, shapeAt](const QRegularExpressionMatch &m, int l) { r.kvHeads = shapeAt(m, l, "n_head_kv"); }}
      << LogPattern{rx(QStringLiteral("\\bn_embd_head_k\\s+=\\s+(-?\\d+)")), [&r, shapeAt](const QRegularExpressionMatch &m, int l) { r.headDim = shapeAt(m, l, "n_embd_head_k"); }}
      << LogPattern{rx(QStringLiteral("\\bn_ctx\\s+=\\s+(-?\\d+)")), [&r, shapeAt](const QRegularExpressionMatch &m, int l) {
                        r.engine = Engine::LlamaCpp;
                        r.maxModelLen = shapeAt(m, l, "n_ctx");
                        r.kvClosed = r.kvOpen = r.kvBuffers = 0;
                        r.kvCaches = 0;
                        r.kvSelf.reset();
                        r.kvCells.reset();
                    }}
      << LogPattern{rx(QStringLiteral("\\bn_seq_max\\s+=\\s+(-?\\d+)")), [&r, shapeAt](const QRegularExpressionMatch &m, int l) { r.nSeq = shapeAt(m, l, "n_seq_max"); }}
      // "llama_context: n_ubatch = 512" (src/llama-context.cpp): the batch the compute buffers and
      // the sliding-window cells are sized for.
      << LogPattern{rx(QStringLiteral("\\bn_ubatch\\s*=\\s*(-?\\d+)")), [&r, shapeAt](const QRegularExpressionMatch &m, int l) { r.nBatch = shapeAt(m, l, "n_ubatch"); }}
      // llama_kv_cache_init: kv_size = 32768, offload = 1, type_k = 'q8_0', type_v = 'q8_0', n_layer = 64
      // (src/llama-kv-cache.cpp): the cells allocated, whatever n_ctx was asked for.
      << LogPattern{rx(QStringLiteral("\\bkv_size\\s*=\\s*(-?\\d+)")), [&r, shapeAt](const QRegularExpressionMatch &m, int l) { r.engine = Engine::LlamaCpp; r.kvCells = shapeAt(m, l, "kv_size"); }}
      << LogPattern{rx(QStringLiteral("\\btype_k\\s*=\\s*'([a-z0-9_]+)'")), [&r](const QRegularExpressionMatch &m, int) { r.kvDtype = m.captured(1); }}
      // "CUDA0 KV buffer size = 2788.00 MiB" per device (layer split): their sum is the cache's size.
      << LogPattern{rx(QStringLiteral("\\bKV buffer size\\s*=\\s*") + num + gib),
                    [&r, mem, field, total](const QRegularExpressionMatch &m, int l) {
                        r.engine = Engine::LlamaCpp;
                        r.kvBuffers = Units::add(r.kvBuffers, mem(m, 1, l), field);
                        r.kvOpen = Units::add(r.kvOpen, mem(m, 1, l), field);
                        total();
                    }}
      << LogPattern{rx(QStringLiteral("KV self size\\s*=\\s*") + num + gib), [&r, mem, total](const QRegularExpressionMatch &m, int l) {
                        r.engine = Engine::LlamaCpp;
                        r.kvClosed = mem(m, 1, l);
                        r.kvOpen = 0;
                        r.kvCaches = 1;
                        total();
                    }}
      << LogPattern{rx(QStringLiteral("llama_kv_cache(?:_unified)?:\\s*size\\s*=\\s*") + num + gib + QStringLiteral("\\s*\\(\\s*(-?\\d+) cells")),
                    [&r, mem, field, total](const QRegularExpressionMatch &m, int l) {
                        r.engine = Engine::LlamaCpp;
                        r.kvClosed = Units::add(r.kvClosed, mem(m, 1, l), field);
                        r.kvOpen = 0;
                        ++r.kvCaches;
                        const qint64 cells = count(m.captured(3), l, field);
                        if (cells > 0 && (!r.kvCells || cells > *r.kvCells))
                            r.kvCells = shape(m.captured(3), l, field, "cells");
                        total();
                    }}
      << LogPattern{rx(QStringLiteral("\\bK \\(([a-z0-9_]+)\\):")), [&r](const QRegularExpressionMatch &m, int) { r.kvDtype = m.captured(1); }}
      << LogPattern{rx(QStringLiteral("R \\(f32\\):\\s*") + num + gib + QStringLiteral(",\\s*S \\(f32\\):\\s*") + num + gib),
                    [&r, mem, field](const QRegularExpressionMatch &m, int l) { r.recurrentState = Units::add(mem(m, 1, l), mem(m, 3, l), field); }}
      // ggml's allocation failures: "allocating 8900.01 MiB on device 0: cudaMalloc failed: out of
      // memory", then "failed to allocate compute buffers" / "failed to create context".
      << LogPattern{rx(QStringLiteral("allocating ") + num + gib + QStringLiteral(" on device (-?\\d+): cudaMalloc failed: out of memory")),
                    [&r](const QRegularExpressionMatch &m, int l) {
                        r.engine = Engine::LlamaCpp;
                        r.fail(QStringLiteral("llamacpp-oom"),
                               QStringLiteral("line %1: llama.cpp ran out of memory on device %2 allocating %3 %4, so the server did not start.").arg(l).arg(m.captured(3), m.captured(1), m.captured(2)));
                    }}
      << LogPattern{rx(QStringLiteral("failed to (allocate compute buffers|create context|allocate buffer for kv cache|initialize the context)")),
                    [&r](const QRegularExpressionMatch &m, int l) {
                        r.engine = Engine::LlamaCpp;
                        r.fail(QStringLiteral("llamacpp-failed"), QStringLiteral("line %1: llama.cpp failed to %2, so the server did not start.").arg(l).arg(m.captured(1)));
                    }};
}

void LlamaCppRule::applyLog(const LogReading &r, Scenario &s) const
{
    if (r.nBatch)
        s.engineSettings.nBatch = *r.nBatch;
    if (r.kvCells || r.maxModelLen)
        s.engineSettings.nCtx = r.kvCells ? *r.kvCells : *r.maxModelLen;
    if (r.layers && r.kvHeads && r.headDim) {
        ModelShape m;
        m.id = QStringLiteral("from-log");
        m.name = r.model.isEmpty() ? QStringLiteral("Model from log") : r.model;
        m.attentionHeads = r.heads.value_or(*r.kvHeads);
        m.kvHeads = *r.kvHeads;
        m.headDim = *r.headDim;
        m.totalParams = s.model.totalParams;
        LayerGroup g;
        g.kvHeads = *r.kvHeads;
        g.headDimK = g.headDimV = *r.headDim;
        m.addLayers(g, *r.layers);
        s.model = m;
        if (!s.kvDtype)
            s.kvDtype = Dtype::FP16;
    }
}

} // namespace Headroom
