// SPDX-License-Identifier: GPL-3.0-or-later
#include "plan/sidepoollever.h"

namespace Headroom {

namespace {

// A draft's option's price: fewer tokens accepted or verified per step.
const QString fewerAccepted = QStringLiteral("fewer draft tokens accepted per step: measure the speed-up");

// The speculative-decoding pool's options: smaller drafts of the same vocabulary, one draft
// layer, half the speculative tokens, none at all (which changes the requirement).
QVector<LeverOption> speculativeOptions(const LeverEvaluator &lever, const LeverContext &c)
{
    QVector<LeverOption> out;
    const Scenario &now = c.now;
    const SpeculativeDecoding &sd = now.speculative;
    if (sd.draftModel) {
        // A draft must share the target's tokenizer: a preset of the same vocabulary, smaller.
        for (const ModelShape &m : c.models) {
            if (m.id == sd.draftModel->id || m.totalParams <= 0 || m.totalParams >= sd.draftModel->totalParams
                || m.vocabSize != sd.draftModel->vocabSize || m.id == now.model.id)
                continue;
            Scenario v = now;
            v.speculative.draftModel = m;
            out << lever.price(c, QStringLiteral("smaller draft %1").arg(m.name), v, fewerAccepted);
        }
    }
    if (sd.draftLayers > 1) {
        Scenario v = now;
        v.speculative.draftLayers = 1;
        out << lever.price(c, QStringLiteral("1 MTP / EAGLE layer"), v, fewerAccepted);
    }
    if (sd.speculativeTokens > 1) {
        Scenario v = now;
        v.speculative.speculativeTokens = sd.speculativeTokens / 2;
        const int k = v.speculative.speculativeTokens;
        out << lever.price(c, k == 1 ? Levers::tr("1 speculative token per step") : Levers::tr("%1 speculative tokens per step").arg(k), v,
                     QStringLiteral("fewer tokens per verification step"));
    }
    if (sd.on()) {
        Scenario v = now;
        v.speculative = SpeculativeDecoding{};
        LeverOption o = lever.price(c, QStringLiteral("no speculative decoding"), v, QStringLiteral("decode one token per step: slower per session"));
        o.changesRequirement = true;
        o.changesRequirementReason = QStringLiteral("gives up the speed-up the draft was there for");
        out << o;
    }
    return out;
}

// The LoRA pool's options: half the slots, half the rank, attention modules only (both
// need retrained adapters).
QVector<LeverOption> loraOptions(const LeverEvaluator &lever, const LeverContext &c)
{
    QVector<LeverOption> out;
    const Scenario &now = c.now;
    const LoraSlots &l = now.lora;
    if (!l.on())
        return out;
    if (l.maxLoras > 1) {
        Scenario v = now;
        v.lora.maxLoras = l.maxLoras / 2;
        out << lever.price(c, QStringLiteral("%1 LoRA slots").arg(v.lora.maxLoras), v,
                     QStringLiteral("adapters beyond %1 wait for a slot (loaded from host memory)").arg(v.lora.maxLoras));
    }
    if (l.maxRank > 8) {
        Scenario v = now;
        v.lora.maxRank = l.maxRank / 2;
        LeverOption o = lever.price(c, QStringLiteral("LoRA rank %1").arg(v.lora.maxRank), v,
                              QStringLiteral("adapters above rank %1 no longer load").arg(v.lora.maxRank));
        o.changesRequirement = true;
        o.changesRequirementReason = QStringLiteral("adapters of rank %1 need retraining at rank %2").arg(l.maxRank).arg(v.lora.maxRank);
        out << o;
    }
    const QStringList attention{QStringLiteral("q"), QStringLiteral("k"), QStringLiteral("v"), QStringLiteral("o")};
    if (l.effectiveModules() != attention && l.effectiveModules().size() > attention.size()) {
        Scenario v = now;
        v.lora.modules = attention;
        LeverOption o = lever.price(c, QStringLiteral("LoRA on attention only (q, k, v, o)"), v,
                              QStringLiteral("adapters trained on the MLP no longer load"));
        o.changesRequirement = true;
        o.changesRequirementReason = QStringLiteral("adapters trained on the MLP need retraining");
        out << o;
    }
    return out;
}

} // namespace

// Side pools (issue #14): a smaller draft, fewer speculative tokens, fewer LoRA slots,
// a lower rank, fewer adapted modules; dropping a pool serves something else, so those
// options change the requirement.
QVector<LeverOption> SidePoolLever::options(const LeverContext &c) const
{
    QVector<LeverOption> out = speculativeOptions(*this, c);
    out << loraOptions(*this, c);
    return out;
}

} // namespace Headroom
