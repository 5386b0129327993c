// SPDX-License-Identifier: GPL-3.0-or-later
// Shapes the model tests share.
#pragma once

#include "kv/modelshape.h"
#include "inputs/scenario.h"

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

} // namespace Headroom::Test
