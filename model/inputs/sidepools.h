// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "kv/modelshape.h"

#include <QStringList>
#include <optional>

namespace Headroom {

/// Speculative decoding's inputs (vLLM --speculative-config, SGLang
/// --speculative-*): a separate draft model, or MTP / EAGLE heads given as a
/// number of layers of the target's own shape, and the tokens proposed per
/// step. Off (on() false) unless a draft or a token count is given; an
/// n-gram proposer is K tokens with no draft.
struct SpeculativeDecoding
{
    std::optional<ModelShape> draftModel; ///< --draft-model: a preset or config.json
    int draftLayers = 0;                  ///< --draft-layers: MTP / EAGLE layers shaped like the target's (0 = none)
    int speculativeTokens = 0;            ///< --num-speculative-tokens K: lookahead slots per session (0 = off)

    bool hasDraft() const { return draftModel.has_value() || draftLayers > 0; }
    bool on() const { return hasDraft() || speculativeTokens > 0; }
    bool operator==(const SpeculativeDecoding &o) const
    {
        return draftModel == o.draftModel && draftLayers == o.draftLayers && speculativeTokens == o.speculativeTokens;
    }
    bool operator!=(const SpeculativeDecoding &o) const { return !(*this == o); }
};

/// LoRA adapter slots (vLLM --enable-lora --max-loras N --max-lora-rank R):
/// N adapters resident on the card at rank R, on the linear layers named in
/// `modules`. Off when maxLoras is 0.
struct LoraSlots
{
    int maxLoras = 0;     ///< --max-loras (0 = off)
    int maxRank = 16;     ///< --max-lora-rank (vLLM's default 16)
    QStringList modules;  ///< --lora-modules, canonical short names; empty = every one of allModules()

    bool on() const { return maxLoras > 0; }
    /// The modules in force: `modules`, or allModules() when empty.
    QStringList effectiveModules() const { return modules.isEmpty() ? allModules() : modules; }
    /// q, k, v, o, gate, up, down: the linear layers of attention and a gated MLP.
    static QStringList allModules();
    /// Parses "q,k,v,o" or "q_proj,v_proj" or "all" into canonical short names,
    /// in allModules() order, each once. Throws InputError(field) naming every
    /// accepted name for an unknown one, and for an empty list.
    static QStringList parseModules(const QString &text, const QString &field);
    bool operator==(const LoraSlots &o) const
    {
        return maxLoras == o.maxLoras && maxRank == o.maxRank && effectiveModules() == o.effectiveModules();
    }
    bool operator!=(const LoraSlots &o) const { return !(*this == o); }
};

} // namespace Headroom
