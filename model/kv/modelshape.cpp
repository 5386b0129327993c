// SPDX-License-Identifier: GPL-3.0-or-later
#include "kv/modelshape.h"
#include "core/inputerror.h"

#include <QtNumeric>

namespace Headroom {

bool LayerGroup::sameCost(const LayerGroup &o) const
{
    return kind == o.kind && kvHeads == o.kvHeads && headDimK == o.headDimK && headDimV == o.headDimV
        && window == o.window && latentDim == o.latentDim && ropeDim == o.ropeDim && indexerHeadDim == o.indexerHeadDim
        && convStateValues == o.convStateValues && ssmStateValues == o.ssmStateValues;
}

bool LayerGroup::operator==(const LayerGroup &o) const
{
    return count == o.count && sameCost(o);
}

qint64 ModelShape::layers() const
{
    return hiddenLayers > 0 ? hiddenLayers : groupLayers();
}

qint64 ModelShape::groupLayers() const
{
    qint64 n = 0;
    for (const LayerGroup &g : groups)
        n += g.count;
    return n;
}

qint64 ModelShape::layersOf(LayerKind kind) const
{
    qint64 n = 0;
    for (const LayerGroup &g : groups)
        if (g.kind == kind)
            n += g.count;
    return n;
}

void ModelShape::addLayers(const LayerGroup &g, int count)
{
    for (LayerGroup &existing : groups) {
        if (existing.sameCost(g)) {
            if (qAddOverflow(existing.count, count, &existing.count))
                throw InputError(QStringLiteral("num_hidden_layers"), QStringLiteral("more than 2,147,483,647 layers of one kind"));
            return;
        }
    }
    LayerGroup added = g;
    added.count = count;
    groups.append(added);
}

bool ModelShape::operator==(const ModelShape &o) const
{
    return id == o.id && name == o.name && hfId == o.hfId && source == o.source && sourceDate == o.sourceDate
        && modelType == o.modelType && attentionHeads == o.attentionHeads && kvHeads == o.kvHeads
        && headDim == o.headDim && hiddenSize == o.hiddenSize && hiddenLayers == o.hiddenLayers
        && intermediateSize == o.intermediateSize && moeIntermediateSize == o.moeIntermediateSize && vocabSize == o.vocabSize && totalParams == o.totalParams
        && activeParams == o.activeParams && derivedParams == o.derivedParams
        && derivedActiveParams == o.derivedActiveParams && checkpointBytes == o.checkpointBytes
        && visionParams == o.visionParams && tokensPerImage == o.tokensPerImage
        && maxPositionEmbeddings == o.maxPositionEmbeddings && numExperts == o.numExperts
        && expertsPerToken == o.expertsPerToken && weightsDtype == o.weightsDtype
        && recurrentStateDtype == o.recurrentStateDtype && groups == o.groups && sizingNotes == o.sizingNotes;
}

QString layerKindName(LayerKind kind)
{
    switch (kind) {
    case LayerKind::FullAttention: return QStringLiteral("full attention");
    case LayerKind::SlidingWindow: return QStringLiteral("sliding window");
    case LayerKind::Mla: return QStringLiteral("MLA");
    case LayerKind::Recurrent: return QStringLiteral("recurrent");
    }
    return {};
}

QDebug operator<<(QDebug dbg, const LayerGroup &g)
{
    QDebugStateSaver saver(dbg);
    dbg.nospace() << "LayerGroup(" << layerKindName(g.kind) << " x" << g.count << ", kv_heads " << g.kvHeads
                  << ", head_dim " << g.headDimK << '/' << g.headDimV << ", window " << g.window << ", latent "
                  << g.latentDim << '+' << g.ropeDim << ", indexer " << g.indexerHeadDim << ", state " << g.convStateValues << '+' << g.ssmStateValues
                  << ')';
    return dbg;
}

QDebug operator<<(QDebug dbg, const ModelShape &m)
{
    QDebugStateSaver saver(dbg);
    dbg.nospace() << "ModelShape(" << m.id << ", layers " << m.layers() << ", heads " << m.attentionHeads
                  << ", kv_heads " << m.kvHeads << ", head_dim " << m.headDim << ", params " << m.totalParams
                  << ", groups " << m.groups << ')';
    return dbg;
}

} // namespace Headroom
