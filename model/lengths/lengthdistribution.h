// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/inputranges.h"

#include <QDebug>
#include <QString>
#include <QVector>
#include <functional>

namespace Headroom {

/// A distribution of resident tokens per session (prompt + output), as a
/// discrete law: sorted distinct lengths with probabilities summing to 1.
/// From a trace (each request weighs the same), a log-normal fitted to a
/// median and a p99 or p90 (optionally truncated at a maximum), a quantile
/// table (log length linear in probability between the given quantiles,
/// 1 token at p = 0, the maximum at p = 1), or a fixed length. Continuous
/// shapes are discretised on a geometric grid of lengths 0.5% apart, each
/// point carrying the mass of the cell it closes (lengths round up by at most
/// 0.5%; tail masses stay exact); an unbounded log-normal stops at its
/// 1 - 1e-12 quantile.
/// A trace that gives prompt and output separately also keeps the law of the
/// prompt alone (for admission counted at the prompt). A value type.
struct LengthDistribution
{
    enum class Kind { Fixed, Trace, LogNormal, Quantiles };

    /// The longest session length any distribution holds (2^53 tokens; InputLimits, core/inputranges.h).
    static constexpr qint64 maxTokens = InputLimits::maxTokens;
    /// The highest arrival rate a trace may give (10^9 per second; InputLimits, core/inputranges.h).
    static constexpr double maxArrivalRatePerSecond = InputLimits::maxArrivalRatePerSecond;

    Kind kind = Kind::Fixed;
    QString spec;                 ///< the --distribution spec it came from (or the trace path)
    QVector<qint64> lengths;      ///< distinct resident lengths, ascending, tokens
    QVector<double> probabilities; ///< P(length), same size, sum 1
    QVector<qint64> promptLengths; ///< trace only: distinct prompt lengths (empty otherwise)
    QVector<double> promptProbabilities;
    double arrivalRatePerSecond = 0; ///< trace only: (requests - 1) / (last - first arrival), 0 when unknown
    double meanOutputTokens = 0;  ///< trace only: mean generated tokens per request
    qint64 requests = 0;          ///< trace only: rows read
    /// Trace with prefix blocks or conversation ids only: the conversations the lengths are
    /// of (TrafficTrace's rule), each weighing once at its longest request (prompt + output,
    /// less the shared prefix); 0 when each request is a session of its own.
    qint64 conversations = 0;
    /// The shared prefix (system prompt) the conversations' lengths leave out, tokens: held
    /// once per card, not once per session (TrafficTrace::commonPrefixTokens).
    qint64 sharedPrefixTokens = 0;

    /// Every session at `tokens`.
    static LengthDistribution fixed(qint64 tokens);
    /// Log-normal with the given median and upper quantile (p = 0.99 or 0.90),
    /// truncated at `maximum` tokens when > 0 (mass above it is removed and
    /// the rest renormalised). Throws InputError(field) when median < 1, the
    /// quantile is not above the median, the maximum is below the median, or
    /// (unbounded) the law's 1 - 1e-12 quantile lies beyond maxTokens.
    static LengthDistribution logNormal(double median, double upper, double upperP, qint64 maximum, const QString &field);
    /// A quantile table: pairs (p, tokens) with 0 < p < 1 ascending in both,
    /// and the maximum (p = 1). Throws InputError(field) naming the quantile
    /// out of order.
    static LengthDistribution quantiles(const QVector<QPair<double, qint64>> &points, qint64 maximum, const QString &field);
    /// Reads a trace: the Azure LLM inference format
    /// (TIMESTAMP,ContextTokens,GeneratedTokens: resident = context +
    /// generated), BurstGPT's CSV (Timestamp in seconds, Request tokens,
    /// Response tokens), Mooncake's JSON lines (timestamp in milliseconds,
    /// input_length, output_length), or one column of lengths, with or
    /// without a header.
    /// Throws InputError(field) with the line number for a non-numeric or
    /// negative cell or a length above maxTokens, and for an empty file.
    /// A JSON-lines trace with hash_ids or conversation ids is read per conversation:
    /// `conversations` and `sharedPrefixTokens` say so (TrafficTrace's rule); the prompts
    /// and the mean output stay per request, the arrival rate is of requests.
    static LengthDistribution fromTrace(const QString &path, const QString &field);
    /// Parses a --distribution spec: trace:PATH, lognormal:median=N,p99=N[,max=N]
    /// (or p90=N), quantiles:p50=N,p90=N,p99=N[,p99.9=N],max=N, fixed:N.
    static LengthDistribution parse(const QString &spec, const QString &field);

    /// Every length multiplied by `factor` (rounded, at least 1 token).
    /// Throws InputError(field) when the factor is not a positive finite
    /// number or a scaled length would exceed maxTokens; `field` is the scale
    /// as its source spells it (Scenario::field(Input::LengthScale):
    /// "--length-scale", "inputs.length_scale"), as parseLength takes its own.
    LengthDistribution scaled(double factor, const QString &field) const;
    /// Each length L, and each prompt length, replaced by max(1, f(L)); lengths `f` maps together
    /// merge, their probabilities summed. `f` must keep every length within maxTokens.
    LengthDistribution mapped(const std::function<qint64(qint64)> &f) const;
    /// Mean length, tokens.
    double mean() const;
    /// The smallest length L with P(length <= L) >= p.
    qint64 quantile(double p) const;
    qint64 maximum() const { return lengths.isEmpty() ? 0 : lengths.last(); }
    /// Share of sessions longer than `cap` (they lose history under the cap).
    double shareAbove(qint64 cap) const;
    /// Mean of max(L - cap, 0): tokens dropped per session, all sessions counted.
    double meanDropped(qint64 cap) const;
    /// E[L - cap | L > cap]: tokens dropped on average by the sessions that lose history,
    /// only those counted (meanDropped / shareAbove); 0 when no session is longer than `cap`.
    double meanDroppedByThoseLosing(qint64 cap) const;
    /// The p-quantile of max(L - cap, 0).
    qint64 droppedQuantile(qint64 cap, double p) const;

    bool operator==(const LengthDistribution &o) const;
    bool operator!=(const LengthDistribution &o) const { return !(*this == o); }
};

QDebug operator<<(QDebug dbg, const LengthDistribution &d);

} // namespace Headroom
