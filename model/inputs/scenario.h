// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/dtype.h"
#include "inputs/engineprofile.h"
#include "core/inputranges.h"
#include "kv/gpuspec.h"
#include "lengths/lengthdistribution.h"
#include "kv/kvcost.h"
#include "kv/modelshape.h"
#include "inputs/sidepools.h"

#include <QJsonObject>
#include <optional>

namespace Headroom {

/// Every input of one capacity question, as a value type: the model and card
/// (resolved presets), precisions, tensor parallelism, engine rule, context
/// policy, concurrency and price. Optional fields left empty mean "as the
/// preset says" (see the effective*() accessors). Pure data: no I/O.
struct Scenario
{
    ModelShape model;
    GpuSpec gpu;
    int tp = 1;                          ///< tensor-parallel GPUs per model replica
    // Where weights, experts and KV live beyond TP (engine flags --pp, --dp, --ep).
    int pp = 1;                          ///< pipeline stages: each GPU holds ceil(layers / pp) layers' weights and KV
    /// Data-parallel replicas of this shape: the fleet when no target sessions are given (its
    /// GPUs dp x gpusPerReplica(), its cost and its overflow probability over dp replicas);
    /// with a target the target sizes the fleet and a dp above 1 is refused (computeCapacity).
    int dp = 1;
    std::optional<int> ep;               ///< expert-parallel GPUs the routed experts are split over (empty: TP, as engines do without EP)
    qint64 contextTokens = 100'000;      ///< resident tokens per session (prompt + output)
    qint64 sessions = 1;                 ///< concurrent sessions asked about, per TP group
    std::optional<Dtype> weightsDtype;   ///< empty: the checkpoint (checkpoint_bytes, else torch_dtype)
    std::optional<Dtype> kvDtype;        ///< empty: the model's dtype (engines' "auto")
    std::optional<int> kvHeadsOverride;  ///< what-if num_key_value_heads for attention layers
    std::optional<qint64> gpuMemoryBytes;   ///< overrides the card's memory, bytes per card
    std::optional<qint64> weightsBytes;     ///< overrides the whole model's weights, bytes
    std::optional<qint64> workspaceBytes;   ///< overrides the workspace, bytes per card
    qint64 runtimeReserveBytes = Engines::defaultRuntimeReserveBytes; ///< per card
    qint64 activationBytes = Engines::defaultActivationBytes;         ///< per card
    Engine engine = Engine::Plain;
    EngineSettings engineSettings;       ///< measured figures and engine options
    double gpuMemoryUtilization = Engines::defaultGpuMemoryUtilization; ///< vLLM rule only
    bool gpuMemoryUtilizationGiven = false; ///< set by the user (warned about outside the vLLM rule)
    int blockSize = Engines::defaultBlockSize; ///< tokens per KV block (1 = no paging)
    std::optional<qint64> maxModelLen;   ///< --max-model-len; empty: max_position_embeddings
    bool preallocate = false;            ///< reserve the maximum context for every session
    std::optional<double> priceUsdPerGpuHour; ///< overrides the card's price

    // Planning against a distribution of session lengths (issue: tail-length distributions).
    std::optional<LengthDistribution> distribution; ///< resident tokens per session; empty: every session at contextTokens
    double lengthScale = 1.0;            ///< every length x this factor (--length-scale)
    std::optional<qint64> retainTokens;  ///< retained-context cap: a session keeps min(L, cap) tokens (--retain)
    /// Output tokens per session (--output-tokens); the rest of its length is the prompt. Empty:
    /// the trace's own split, else half the length. Times the decode step's turnover (a session
    /// ends every output-tokens steps and a new prompt is prefilled in the running batch) and the
    /// time to first token (plan/servingestimate.h).
    std::optional<qint64> outputTokens;
    double risk = 0.01;                  ///< accepted P(KV pool overflows) per replica (--risk), 1e-6 .. 0.5; not read when fleetRisk is set
    /// Accepted P(some replica of the fleet overflows) (--fleet-risk), 1e-6 .. 0.5: when set,
    /// each replica's risk is solved from it (plan/fleetrisk.h) and `risk` is not read.
    std::optional<double> fleetRisk;
    double marginFraction = 0.05;        ///< headroom kept free for admission (engines degrade near a full pool)
    std::optional<qint64> targetSessions; ///< concurrent sessions the fleet must hold (--target-sessions)
    /// Achieved / peak memory bandwidth in decode (--bandwidth-efficiency); empty: the fitted
    /// fraction of the engine (plan/timeconstants.h).
    std::optional<double> bandwidthEfficiency;
    /// Achieved / peak dense tensor FLOPS (--compute-utilization); empty: the engine's fitted fraction.
    std::optional<double> computeUtilization;
    double trafficMultiplier = 1.0;      ///< scales a trace's arrival rate for Little's law (--traffic-multiplier)
    /// How each input is named in errors: as the place its value came from spells it
    /// (set by the readers; the flags by default). Not compared by ==.
    InputNames names;
    /// The name of `input` in errors (names.of(input)).
    QString field(Input input) const { return names.of(input); }
    /// The names a KvCost of this scenario gives its errors.
    KvCost::Names kvCostNames() const { return {field(Input::Tp), field(Input::KvHeads), field(Input::BlockSize), field(Input::Model)}; }

    // Side pools and the host tier (issue 14).
    int imagesPerRequest = 1;            ///< images per request on a vision model (--images-per-request; 0 = text only: no encoder cache, vLLM skips the tower)
    std::optional<double> decodingShare; ///< share of retained sessions decoding at once (--decoding-share, 1e-6 .. 1); empty: 1, every session decodes
    std::optional<qint64> hostKvMemoryBytes; ///< host memory for KV per node (--host-kv-memory), bytes; empty: no host tier
    int gpusPerNode = 8;                 ///< cards per node sharing that host memory (--gpus-per-node; 8 in an HGX/DGX node)
    // Side pools on the card beside weights and KV (issue #14; plan/sidepools.h sizes them).
    SpeculativeDecoding speculative;     ///< draft model / MTP heads and lookahead slots (off by default)
    LoraSlots lora;                      ///< LoRA adapter slots (off by default)

    /// Weights precision in force (bf16 for a float32 checkpoint: served in bf16).
    Dtype effectiveWeightsDtype() const;
    /// KV-cache precision in force (the weights' 16-bit type when unset).
    Dtype effectiveKvDtype() const;
    /// Card memory in force, bytes.
    qint64 effectiveGpuMemoryBytes() const { return gpuMemoryBytes.value_or(gpu.memoryBytes); }
    /// Card memory as the engine sees it (torch's total), bytes: the override
    /// (the user's figure), else GpuSpec::engineVisibleBytes().
    qint64 effectiveEngineMemoryBytes() const { return gpuMemoryBytes.value_or(gpu.engineVisibleBytes()); }
    /// num_key_value_heads in force: the what-if override, else the model's.
    int effectiveKvHeads() const { return kvHeadsOverride.value_or(model.kvHeads); }
    /// Workspace per card in force: the override, else reserve + activations.
    qint64 effectiveWorkspaceBytes() const;
    /// Context every session reserves under preallocation: --max-model-len,
    /// else max_position_embeddings (0 when neither is known).
    qint64 effectiveMaxModelLen() const { return maxModelLen.value_or(model.maxPositionEmbeddings); }
    /// The tokens per KV block the engine pages in: TensorRT-LLM's tokens_per_block (its
    /// KvCacheConfig, 32 by default), else --block-size (vLLM's 16 by default).
    int effectiveBlockSize() const { return engine == Engine::Trtllm ? engineSettings.trtTokensPerBlock : blockSize; }
    /// Price in force, $ per GPU-hour, if any.
    std::optional<double> effectivePrice() const { return priceUsdPerGpuHour ? priceUsdPerGpuHour : gpu.priceUsdPerHour; }

    /// Model replica GPUs: tp x pp (in 64 bits: both may be up to 10^6).
    qint64 gpusPerReplica() const { return qint64(tp) * pp; }
    /// The layers one GPU holds KV for: the model, each layer group cut to ceil(count / pp)
    /// (pipeline stages split layers evenly; the first stage holds the remainder).
    ModelShape stageModel() const;

    bool operator==(const Scenario &o) const;
    bool operator!=(const Scenario &o) const { return !(*this == o); }
};

QDebug operator<<(QDebug dbg, const Scenario &s);

} // namespace Headroom
