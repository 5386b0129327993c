// SPDX-License-Identifier: GPL-3.0-or-later
#include "inputs/engineprofile.h"

namespace Headroom {

bool EngineSettings::operator==(const EngineSettings &o) const
{
    return kvCacheMemory == o.kvCacheMemory && freeMemoryBefore == o.freeMemoryBefore
        && freeMemoryAfter == o.freeMemoryAfter && activationPeak == o.activationPeak && nonTorch == o.nonTorch
        && cudaGraph == o.cudaGraph && memFractionStatic == o.memFractionStatic
        && freeGpuMemoryFraction == o.freeGpuMemoryFraction && maxNumBatchedTokens == o.maxNumBatchedTokens
        && vllmMajor == o.vllmMajor && vllmMinor == o.vllmMinor && nCtx == o.nCtx && nSeq == o.nSeq
        && nBatch == o.nBatch && trtTokensPerBlock == o.trtTokensPerBlock;
}

} // namespace Headroom
