// SPDX-License-Identifier: GPL-3.0-or-later
#include "engines/enginerule.h"
#include "core/inputerror.h"
#include "engines/llamacpp.h"
#include "engines/ollama.h"
#include "engines/plain.h"
#include "engines/sglang.h"
#include "engines/trtllm.h"
#include "engines/vllm.h"

#include <QJsonArray>
#include <cmath>
#include <limits>

namespace Headroom {

AdmissionRule EngineRule::admission(const Scenario &) const
{
    return {QStringLiteral("paged"),
            QStringLiteral("Paged admission: a session is charged the blocks its tokens fill as they arrive, so sessions are counted "
                           "at the lengths they reach."),
            std::nullopt};
}

namespace Engines {

const EngineRule &rule(Engine e)
{
    // The dispatcher: one line per engine.
    static const PlainRule plain;
    static const VllmRule vllm;
    static const SglangRule sglang;
    static const TrtllmRule trtllm;
    static const LlamaCppRule llamacpp;
    static const OllamaRule ollama;
    switch (e) {
    case Engine::Plain: return plain;
    case Engine::Vllm: return vllm;
    case Engine::Sglang: return sglang;
    case Engine::Trtllm: return trtllm;
    case Engine::LlamaCpp: return llamacpp;
    case Engine::Ollama: return ollama;
    }
    return plain;
}

QList<Engine> readers(Input input)
{
    QList<Engine> out;
    for (Engine e : all())
        if (rule(e).settings().contains(input))
            out << e;
    return out;
}

QString foreignSetting(Engine e, Input input)
{
    const QList<Engine> owners = readers(input);
    if (owners.isEmpty() || owners.contains(e))
        return {};
    QStringList names;
    for (Engine o : owners)
        names << name(o);
    const QString list = names.size() == 1 ? names.first() : names.mid(0, names.size() - 1).join(QStringLiteral(", ")) + QStringLiteral(" and ") + names.last();
    return QStringLiteral("is a setting of the %1 engine%2 only; the %3 engine does not read it: add --engine %4, or leave it out")
        .arg(list, names.size() == 1 ? QString() : QStringLiteral("s"), name(e), names.first());
}

QList<Engine> all()
{
    return {Engine::Plain, Engine::Vllm, Engine::Sglang, Engine::Trtllm, Engine::LlamaCpp, Engine::Ollama};
}

QString name(Engine e)
{
    return rule(e).name();
}

QString describe(Engine e)
{
    return rule(e).describe();
}

QStringList names()
{
    QStringList out;
    for (Engine e : all())
        out << name(e);
    return out;
}

Engine parse(const QString &text, const QString &field)
{
    const QString t = text.trimmed().toLower();
    for (Engine e : all())
        if (t == rule(e).name() || rule(e).aliases().contains(t))
            return e;
    throw InputError(field, QStringLiteral("unknown engine \"%1\"; use one of %2").arg(text, names().join(QStringLiteral(", "))));
}

} // namespace Engines

EngineBudget engineBudget(const Scenario &s, qint64 weightsPerGpu)
{
    return Engines::rule(s.engine).budget(s, weightsPerGpu);
}

EngineFigures computeEngineFigures(const Scenario &s, const KvCost &cost, qint64 budget)
{
    EngineFigures f = Engines::rule(s.engine).figures(s, cost, budget);
    f.engine = s.engine;
    if (f.maxModelLen == 0)
        f.maxModelLen = s.effectiveMaxModelLen();
    return f;
}

void EngineFigures::addTo(QJsonObject &o) const
{
    o.insert(QStringLiteral("engine"), Engines::name(engine));
    o.insert(QStringLiteral("engine_kv_cache_bytes"), kvCacheBytes);
    o.insert(QStringLiteral("engine_num_blocks"), numBlocks);
    o.insert(QStringLiteral("engine_kv_cache_tokens"), kvCacheTokens);
    o.insert(QStringLiteral("engine_kv_cache_tokens_low"), kvCacheTokensLow);
    o.insert(QStringLiteral("engine_kv_cache_tokens_high"), kvCacheTokensHigh);
    o.insert(QStringLiteral("engine_kv_budget_spread_below_bytes"), budgetSpreadDownBytes);
    o.insert(QStringLiteral("engine_kv_budget_spread_above_bytes"), budgetSpreadUpBytes);
    o.insert(QStringLiteral("engine_kv_budget_spread_terms"), QJsonArray::fromStringList(spreadTerms));
    o.insert(QStringLiteral("engine_max_concurrency"), maxConcurrency);
    o.insert(QStringLiteral("engine_max_model_len"), maxModelLen);
    Engines::rule(engine).addJson(*this, o);
    o.insert(QStringLiteral("engine_predicts"), QJsonArray::fromStringList(predicts));
    o.insert(QStringLiteral("engine_note"), note);
}

void EngineBudget::addSpread(qint64 more, qint64 less, const QString &term)
{
    const auto saturated = [](qint64 a, qint64 b) { return b > std::numeric_limits<qint64>::max() - a ? std::numeric_limits<qint64>::max() : a + b; };
    spreadDown = saturated(spreadDown, std::max<qint64>(0, more));
    spreadUp = saturated(spreadUp, std::max<qint64>(0, less));
    spreadTerms << term;
}

namespace EngineMath {

qint64 fractionOf(qint64 bytes, double fraction)
{
    return qint64(std::floor((long double)bytes * (long double)fraction));
}

void checkFraction(double f, const QString &field)
{
    if (!(f > 0 && f <= 1))
        throw InputError(field, QStringLiteral("must be greater than 0 and at most 1, got %1").arg(f));
}

qint64 padTo(qint64 n, qint64 multiple, const QString &field)
{
    return Units::mul(Units::ceilDiv(n, multiple), multiple, field, "token count");
}

qint64 windowCells(qint64 window, qint64 seqs, qint64 batch, qint64 cap, qint64 multiple)
{
    qint64 cells = 0;
    if (qMulOverflow(window, seqs, &cells) || qAddOverflow(cells, batch, &cells) || cells >= cap)
        return cap;
    const qint64 blocks = Units::ceilDiv(cells, multiple);
    return blocks > cap / multiple ? cap : std::min(cap, blocks * multiple);
}

qint64 workspaceLeft(qint64 memory, qint64 weights, qint64 budget)
{
    // memory and weights are >= 0, so their difference fits; less a negative budget it may pass
    // 2^63 (held there), less a positive one it may pass -2^63 (nothing is left).
    qint64 left = 0;
    if (qSubOverflow(memory - weights, budget, &left))
        return budget < 0 ? std::numeric_limits<qint64>::max() : 0;
    return std::max<qint64>(0, left);
}

void addKvSelfJson(const EngineFigures &f, QJsonObject &o)
{
    o.insert(QStringLiteral("engine_kv_self_bytes"), f.kvSelfBytes);
    o.insert(QStringLiteral("engine_recurrent_state_bytes"), f.recurrentStateBytes);
}

QString kvSelfLine(const QString &printed, const EngineFigures &e)
{
    return QStringLiteral("%1: %2 cells → KV %3 (%4)%5")
        .arg(printed, Units::formatCount(e.kvCacheTokens), Units::formatExactBytes(e.kvSelfBytes), Units::formatBytes(e.kvSelfBytes, UnitSystem::Binary),
             e.recurrentStateBytes > 0 ? QStringLiteral(" + recurrent state %1").arg(Units::formatBytes(e.recurrentStateBytes, UnitSystem::Binary))
                                       : QString());
}

} // namespace EngineMath

} // namespace Headroom
