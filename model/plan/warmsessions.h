// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "inputs/scenario.h"
#include "kv/kvcost.h"

#include <QJsonObject>
#include <QVector>
#include <optional>

namespace Headroom {

/// Bringing one idle session back at one length: its KV over the host link
/// against prefilling it again.
struct ResumePoint
{
    qint64 tokens = 0;
    std::optional<double> resumeMs;    ///< session bytes per GPU / host link bandwidth (each GPU pulls its own shard)
    std::optional<double> recomputeMs; ///< the prefill of `tokens` (timeToFirstToken, the serving roofline)
    /// True when fetching from host memory is faster than recomputing (both known).
    bool resumeFaster() const { return resumeMs && recomputeMs && *resumeMs < *recomputeMs; }
};

/// Two tiers of sessions on a node: those decoding need their KV on the card;
/// idle ones (between turns) can wait in host memory, as vLLM's KV offloading
/// (--kv-offloading-size, a host buffer in GB) and LMCache, or SGLang's
/// hierarchical cache (--hicache-size GB, else --hicache-ratio x the device
/// pool, default 2; docs.sglang.io advanced_features/hicache_best_practices)
/// keep them. Per node of `gpusPerNode` cards (replicas = gpusPerNode / GPUs
/// per replica, at least 1):
/// - card = the KV pool's sessions (max_sessions) x replicas;
/// - host = floor(host KV memory / one session's KV over its replica), the
///   session at the reserved length (the context or the cap);
/// - retained = min(card + host, floor(card / decoding share)): every decoding
///   session is on the card, so at share F at most card / F sessions are
///   retained; at F = 1 the host tier keeps none;
/// - decoding = min(card, F x retained), quoted per GPU of the node.
struct WarmSessions
{
    double decodingShare = 1;
    qint64 hostKvBytesPerNode = 0;
    int gpusPerNode = 0;               ///< GPUs of the node in use: replicas x GPUs per replica
    qint64 replicasPerNode = 0;
    qint64 sessionBytesPerReplica = 0; ///< one session at the reserved length, every GPU of its replica
    qint64 cardSessionsPerNode = 0;
    qint64 hostSessionsPerNode = 0;
    qint64 retainedPerNode = 0;        ///< sessions_retained_per_node
    double decodingPerGpu = 0;         ///< sessions_decoding_per_gpu
    qint64 hostLinkBytesPerSecond = 0; ///< per GPU, one direction (the GPU preset's host_link_bytes_per_s)
    ResumePoint atContext;             ///< at the reserved length
    QVector<ResumePoint> byLength;     ///< 1,024 tokens doubling up to the reserved length, then it

    /// The JSON fields: sessions_decoding_per_gpu, sessions_retained_per_node,
    /// resume_ms, recompute_ms, resume_faster and resume_vs_recompute.
    void addJson(QJsonObject &o) const;
};

/// The two tiers for `s`, given its KV cost, the KV pool's sessions per replica
/// `cardSessions`, the reserved tokens per session and weights per GPU. Throws
/// InputError("--gpus-per-node") below 1 or above 1,024, ("--host-kv-memory")
/// when negative, ("--decoding-share") out of its range.
WarmSessions warmSessions(const Scenario &s, const KvCost &cost, qint64 cardSessions, qint64 reservedTokens, qint64 weightsBytesPerGpu);

} // namespace Headroom
