// SPDX-License-Identifier: GPL-3.0-or-later
// Shapes the model tests share.
#pragma once

#include "modelshape.h"

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

} // namespace Headroom::Test
