// SPDX-License-Identifier: GPL-3.0-or-later
#include "engines/runnability.h"
#include "engines/enginerule.h"

#include <QCoreApplication>

namespace Headroom {

namespace {

/// The translation context of the runnability reasons.
struct Runnable
{
    Q_DECLARE_TR_FUNCTIONS(Runnable)
};

// "vLLM 0.11", or the engine alone when its releases are not numbered (llama.cpp builds, plain).
QString engineAt(const EngineRule &rule, const EngineVersion &v)
{
    return v == EngineVersion{} ? rule.title() : QStringLiteral("%1 %2").arg(rule.title(), v.text());
}

// The engine's spellings of the formats it takes at `v`, each once, in its list's order.
QString accepted(const EngineRule &rule, const EngineVersion &v)
{
    QStringList out;
    for (const KvDtypeSupport &k : rule.kvDtypes())
        if (v.atLeast(k.since.major, k.since.minor, k.since.patch) && !out.contains(QLatin1String(k.spelling)))
            out << QString::fromLatin1(k.spelling);
    return out.join(QStringLiteral(", "));
}

// Whether the card runs `d` natively, as its preset says (and cites), or that it does not say.
QString cardWords(const GpuSpec &g, Dtype d)
{
    const std::optional<bool> native = g.runsNatively(d);
    if (!native)
        return Runnable::tr("%1 states no native formats, so none is checked").arg(g.name);
    if (*native)
        return Runnable::tr("%1 runs %2 natively (%3)").arg(g.name, Dtypes::name(d), g.nativeFormatsSource);
    QStringList names;
    for (Dtype f : *g.nativeFormats)
        names << Dtypes::name(f);
    return Runnable::tr("%1 does not run %2 natively (its tensor cores: %3; %4)")
        .arg(g.name, Dtypes::name(d), names.join(QStringLiteral(", ")), g.nativeFormatsSource);
}

} // namespace

Runnability Runnability::of(const Scenario &s)
{
    const EngineRule &rule = Engines::rule(s.engine);
    const EngineVersion v = rule.kvDtypeVersion(s);
    const Dtype d = s.effectiveKvDtype();
    const QString engine = engineAt(rule, v), name = Dtypes::name(d), source = rule.kvDtypeSource();
    const auto [vendors, vendorSource] = rule.cardVendors();
    if (!vendors.isEmpty() && !s.gpu.vendor.isEmpty() && !vendors.contains(s.gpu.vendor))
        return {false, Runnable::tr("%1 does not run on %2, a card by %3: it runs on %4 cards only (%5)")
                           .arg(rule.title(), s.gpu.name, s.gpu.vendor, vendors.join(QStringLiteral(", ")), vendorSource)};
    const QVector<KvDtypeSupport> list = rule.kvDtypes();
    const auto k = std::find_if(list.cbegin(), list.cend(), [d](const KvDtypeSupport &e) { return e.dtype == d; });
    if (k == list.cend())
        return {false, Runnable::tr("%1 has no KV cache in %2: it takes %3 (%4)").arg(engine, name, accepted(rule, v), source)};
    if (!v.atLeast(k->since.major, k->since.minor, k->since.patch))
        return {false, Runnable::tr("%1 has no KV cache in %2: \"%3\" from %4 (%5)").arg(engine, name, QLatin1String(k->spelling), k->since.text(), source)};
    const QString spelling = QLatin1String(k->spelling);
    if (!k->needsNativeCard)
        return {true, Runnable::tr("%1 takes a KV cache in %2 as \"%3\" (%4)").arg(engine, name, spelling, source)};
    // The card first: whether it runs the format decides.
    return {s.gpu.runsNatively(d).value_or(true),
            Runnable::tr("%1; %2 takes a KV cache in %3 as \"%4\" only on a card that runs it natively (%5)")
                .arg(cardWords(s.gpu, d), engine, name, spelling, source)};
}

} // namespace Headroom
