// SPDX-License-Identifier: GPL-3.0-or-later
#include "engines/plain.h"

namespace Headroom {

QVector<KvDtypeSupport> PlainRule::kvDtypes() const
{
    QVector<KvDtypeSupport> out;
    // NVFP4 only on a card whose tensor cores run it, as every engine that offers it (vLLM 0.21,
    // TensorRT-LLM) has it; every other format is taken as runnable.
    for (Dtype d : Dtypes::offered())
        out << KvDtypeSupport{d, Dtypes::info(d).name, {}, d == Dtype::NVFP4};
    return out;
}

QString PlainRule::kvDtypeSource() const
{
    return QStringLiteral("no engine named: every format is taken as runnable, nvfp4 only on a card that runs it, as vLLM and "
                          "TensorRT-LLM take it");
}

QString PlainRule::describe() const
{
    return QStringLiteral("Plain: card − weights − workspace");
}

EngineBudget PlainRule::cardMinusWorkspace(const Scenario &s, qint64 weightsPerGpu)
{
    EngineBudget b;
    const qint64 memory = s.effectiveGpuMemoryBytes();
    b.memory = memory;
    b.usable = memory;
    b.workspace = s.effectiveWorkspaceBytes();
    b.budget = memory - Units::add(weightsPerGpu, s.field(Input::Weights), b.workspace, s.field(Input::Workspace));
    b.rule = QStringLiteral("card − weights − workspace");
    return b;
}

EngineBudget PlainRule::budget(const Scenario &s, qint64 weightsPerGpu) const
{
    return cardMinusWorkspace(s, weightsPerGpu);
}

EngineFigures PlainRule::figures(const Scenario &s, const KvCost &cost, qint64 budget) const
{
    EngineFigures f;
    const qint64 pool = std::max<qint64>(0, budget);
    const qint64 perToken = cost.bytesPerTokenPerGpu();
    f.kvCacheBytes = pool;
    f.numBlocks = perToken > 0 ? pool / Units::mul(perToken, s.blockSize, s.field(Input::BlockSize)) : 0;
    f.kvCacheTokens = f.numBlocks * s.blockSize;
    f.predicts = QStringList{QStringLiteral("textbook figures, no engine")};
    return f;
}

} // namespace Headroom
