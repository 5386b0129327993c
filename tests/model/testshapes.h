// SPDX-License-Identifier: GPL-3.0-or-later
// Shapes the model tests share.
#pragma once

#include "kv/modelshape.h"
#include "inputs/scenario.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>

namespace Headroom::Test {

/// A dense full-attention model, as a custom --layers/--heads/--kv-heads/--head-dim shape.
inline ModelShape dense(int layers, int heads, int kvHeads, int headDim, qint64 params = 1'000'000'000)
{
    ModelShape m;
    m.id = QStringLiteral("test");
    m.name = QStringLiteral("test model");
    m.attentionHeads = heads;
    m.kvHeads = kvHeads;
    m.headDim = headDim;
    m.totalParams = m.activeParams = params;
    LayerGroup g;
    g.kind = LayerKind::FullAttention;
    g.kvHeads = kvHeads;
    g.headDimK = g.headDimV = headDim;
    m.addLayers(g, layers);
    return m;
}

/// Founding example A (shared/design/seed-figures.md): 8B GQA bf16 (32 x 8 KV heads x 128),
/// 8e9 parameters, an 80 GB card, 4 GB of workspace.
inline Scenario seedA(qint64 context)
{
    Scenario s;
    s.model = dense(32, 32, 8, 128, 8'000'000'000);
    s.gpu = GpuSpec::custom(80'000'000'000);
    s.workspaceBytes = 4'000'000'000;
    s.weightsDtype = Dtype::BF16;
    s.kvDtype = Dtype::BF16;
    s.contextTokens = context;
    return s;
}

/// Founding example B: 7B MHA fp16 (32 x 32 x 128), 14 GB of weights, an 80 GB card, no workspace.
inline Scenario seedB(qint64 context, int kvHeads = 32, qint64 card = 80'000'000'000, qint64 weights = 14'000'000'000)
{
    Scenario s;
    s.model = dense(32, 32, kvHeads, 128, 7'000'000'000);
    s.gpu = GpuSpec::custom(card);
    s.weightsBytes = weights;
    s.workspaceBytes = 0;
    s.kvDtype = Dtype::FP16;
    s.contextTokens = context;
    return s;
}

// A GPU preset as shipped (presets/gpus/<id>.json).
inline GpuSpec gpuPreset(const char *id)
{
    QFile f(QStringLiteral(HEADROOM_SOURCE "/presets/gpus/") + QString::fromLatin1(id) + QStringLiteral(".json"));
    if (!f.open(QIODevice::ReadOnly))
        qFatal("no GPU preset %s", id);
    return GpuSpec::fromPreset(QJsonDocument::fromJson(f.readAll()).object());
}

// A dense or MoE shape with the fields the activation estimate reads (config.json names).
inline ModelShape shaped(ModelShape m, qint64 hidden, qint64 intermediate, qint64 vocab, qint64 params, int experts = 0, int perToken = 0,
                  qint64 expertSize = 0)
{
    m.hiddenSize = hidden;
    m.intermediateSize = intermediate;
    m.vocabSize = vocab;
    m.totalParams = m.activeParams = params;
    m.numExperts = experts;
    m.expertsPerToken = perToken;
    m.moeIntermediateSize = expertSize;
    return m;
}

// Llama-3.1-8B config.json: 32 layers, 32 heads, 8 KV heads, head_dim 128, hidden 4096,
// intermediate 14336, vocab 128256; 8,030,261,248 parameters (bf16).
inline ModelShape llama31_8b()
{
    return shaped(dense(32, 32, 8, 128), 4096, 14336, 128256, 8'030'261'248);
}

} // namespace Headroom::Test
