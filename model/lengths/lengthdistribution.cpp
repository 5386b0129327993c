// SPDX-License-Identifier: GPL-3.0-or-later
#include "lengths/lengthdistribution.h"
#include "core/inputerror.h"
#include "lengths/normaldistribution.h"
#include "lengths/traceheader.h"
#include "lengths/tracereading.h"
#include "lengths/traffictrace.h"
#include "core/units.h"
#include "core/jsonnumbers.h"

#include <QRegularExpression>
#include <cctype>
#include <QDate>
#include <QtEndian>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QHash>
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <vector>

namespace Headroom {

namespace {

// Collects lengths with weights into the sorted distinct form.
void assign(const QMap<qint64, double> &counts, QVector<qint64> &lengths, QVector<double> &probs)
{
    double total = 0;
    for (double c : counts)
        total += c;
    lengths.clear();
    probs.clear();
    for (auto it = counts.cbegin(); it != counts.cend(); ++it) {
        lengths << it.key();
        probs << it.value() / total;
    }
}

// Discretises a continuous law given by its CDF on a geometric grid of
// lengths (ratio 1.005 between neighbours, whole tokens): each grid point L_i
// carries F(L_i) - F(L_i-1), the mass of the cell it closes, so every length
// rounds up by at most 0.5% (conservative for capacity) and the tail keeps
// its true, tiny masses rather than a 1/n granule. `top` is the largest length,
// 1 to maxTokens. Steps: at most 200 of one token (until 1.005^k outgrows
// k), then ln(top) / ln(1.005) < 7,400 geometric ones (top <= 2^53), so the
// loop ends; x is compared with top as a double before any cast.
template <typename Cdf>
void discretise(Cdf cdf, qint64 top, QVector<qint64> &lengths, QVector<double> &probs)
{
    Q_ASSERT(top >= 1 && top <= LengthDistribution::maxTokens);
    QMap<qint64, double> counts;
    double previous = 0;
    double x = 1.0;
    qint64 last = 0;
    while (last < top) {
        const qint64 next = x < double(top) ? qint64(std::ceil(x)) : top;
        const qint64 l = std::min(top, std::max(last + 1, next));
        const double f = l >= top ? 1.0 : std::clamp(cdf(double(l)), previous, 1.0);
        if (f > previous)
            counts[l] += f - previous;
        previous = f;
        last = l;
        x *= 1.005;
    }
    assign(counts, lengths, probs);
}

qint64 parseLength(const QString &text, const QString &field)
{
    const qint64 v = Units::parseCount(text, field);
    if (v > LengthDistribution::maxTokens)
        throw InputError(field, QStringLiteral("%1 tokens is beyond the longest length Headroom plans for (2^53 = %2 tokens)")
                                    .arg(text, Units::formatCount(LengthDistribution::maxTokens)));
    return v;
}

} // namespace

LengthDistribution LengthDistribution::fixed(qint64 tokens)
{
    LengthDistribution d;
    d.kind = Kind::Fixed;
    d.spec = QStringLiteral("fixed:%1").arg(tokens);
    d.lengths = {tokens};
    d.probabilities = {1.0};
    return d;
}

LengthDistribution LengthDistribution::logNormal(double median, double upper, double upperP, qint64 maximum, const QString &field)
{
    if (!(median >= 1) || !(median <= double(maxTokens)))
        throw InputError(field, QStringLiteral("median must be from 1 to 2^53 tokens"));
    if (!(upper <= double(maxTokens)))
        throw InputError(field, QStringLiteral("p%1 must be at most 2^53 tokens").arg(upperP * 100));
    if (maximum > maxTokens)
        throw InputError(field, QStringLiteral("max must be at most 2^53 tokens"));
    if (!(upper > median))
        throw InputError(field, QStringLiteral("p%1 (%2) must be above the median (%3)").arg(upperP * 100).arg(upper).arg(median));
    if (maximum > 0 && maximum < median)
        throw InputError(field, QStringLiteral("max (%1) must not be below the median (%2)").arg(maximum).arg(median));
    if (maximum > 0 && double(maximum) < upper)
        throw InputError(field, QStringLiteral("max (%1) must be at least p%2 (%3)").arg(maximum).arg(upperP * 100).arg(upper));
    LengthDistribution d;
    d.kind = Kind::LogNormal;
    d.spec = QStringLiteral("lognormal:median=%1,p%2=%3%4")
                 .arg(median)
                 .arg(upperP > 0.95 ? 99 : 90)
                 .arg(upper)
                 .arg(maximum > 0 ? QStringLiteral(",max=%1").arg(maximum) : QString());
    const double mu = std::log(median);
    const double sigma = (std::log(upper) - mu) / Normal::quantile(upperP);
    // Truncated at the maximum and renormalised; unbounded, the law stops at
    // its 1 - 1e-12 quantile (mass beyond is below any risk Headroom accepts).
    const double mass = maximum > 0 ? Normal::cdf((std::log(double(maximum)) - mu) / sigma) : 1.0;
    // The unbounded top, checked as a double before the cast: a wide law
    // (median 1000, p90 810,001) reaches past 2^63 tokens.
    const double tail = std::ceil(std::exp(mu + sigma * Normal::quantile(1.0 - 1e-12)));
    if (maximum <= 0 && !(tail <= double(maxTokens)))
        throw InputError(field, QStringLiteral("the law is so wide that its 1 - 1e-12 quantile is %1 tokens, beyond 2^53; "
                                               "give a smaller p%2 or a max=N")
                                    .arg(tail, 0, 'g', 3)
                                    .arg(upperP * 100));
    const qint64 top = maximum > 0 ? maximum : std::max<qint64>(1, qint64(tail));
    discretise([&](double l) { return Normal::cdf((std::log(l) - mu) / sigma) / mass; }, top, d.lengths, d.probabilities);
    return d;
}

LengthDistribution LengthDistribution::quantiles(const QVector<QPair<double, qint64>> &points, qint64 maximum, const QString &field)
{
    QVector<QPair<double, double>> knots{{0.0, 0.0}}; // (p, log length): 1 token at p = 0
    for (const auto &pt : points) {
        if (!(pt.first > knots.last().first && pt.first < 1.0))
            throw InputError(field, QStringLiteral("quantile p%1 is out of order").arg(pt.first * 100));
        if (pt.second < 1 || std::log(double(pt.second)) < knots.last().second)
            throw InputError(field, QStringLiteral("p%1 = %2 tokens is below the quantile before it").arg(pt.first * 100).arg(pt.second));
        knots << qMakePair(pt.first, std::log(double(pt.second)));
    }
    if (maximum < 1 || maximum > maxTokens || std::log(double(maximum)) < knots.last().second)
        throw InputError(field, QStringLiteral("max (%1) must be at least the highest quantile").arg(maximum));
    knots << qMakePair(1.0, std::log(double(maximum)));
    LengthDistribution d;
    d.kind = Kind::Quantiles;
    QStringList parts;
    for (const auto &pt : points)
        parts << QStringLiteral("p%1=%2").arg(pt.first * 100).arg(pt.second);
    parts << QStringLiteral("max=%1").arg(maximum);
    d.spec = QStringLiteral("quantiles:") + parts.join(QLatin1Char(','));
    // The CDF: p linear in log length between the knots.
    discretise(
        [&](double l) {
            const double x = std::log(l);
            int i = 1;
            while (i < knots.size() - 1 && knots.at(i).second < x)
                ++i;
            const auto &a = knots.at(i - 1), &b = knots.at(i);
            if (b.second <= a.second)
                return b.first;
            return a.first + (b.first - a.first) * std::clamp((x - a.second) / (b.second - a.second), 0.0, 1.0);
        },
        maximum, d.lengths, d.probabilities);
    return d;
}

LengthDistribution LengthDistribution::fromTrace(const QString &path, const QString &field)
{
    TrafficTrace traffic;
    traffic.path = path;
    LengthDistribution d = readTraceFile(path, field, 256 * Units::MiB, &traffic, false);
    if (!traffic.hasBlocks && !traffic.hasConversationIds)
        return d;
    lengthsPerConversation(traffic, d);
    return d;
}

LengthDistribution LengthDistribution::parse(const QString &spec, const QString &field)
{
    const int colon = spec.indexOf(QLatin1Char(':'));
    const QString kind = spec.left(colon).trimmed().toLower();
    const QString rest = colon >= 0 ? spec.mid(colon + 1) : QString();
    if (colon < 0)
        throw InputError(field, QStringLiteral("\"%1\" must start with trace:, lognormal:, quantiles: or fixed:").arg(spec));
    if (kind == QLatin1String("trace"))
        return fromTrace(rest, field);
    if (kind == QLatin1String("fixed")) {
        LengthDistribution d = fixed(parseLength(rest, field));
        d.spec = spec;
        return d;
    }
    QMap<QString, QString> args;
    QString previous;
    for (const QString &part : rest.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        const QStringList kv = part.split(QLatin1Char('='));
        // "median=1,000": the comma that separates parameters split a thousands group off.
        static const QRegularExpression thousandsGroup(QStringLiteral("^\\d{3}\\z"));
        if (kv.size() == 1 && previous.contains(QLatin1Char('=')) && previous.back().isDigit() && thousandsGroup.match(part.trimmed()).hasMatch())
            throw InputError(field, QStringLiteral("\"%1,%2\": commas separate the parameters, so write the number without separators (%3)")
                                        .arg(previous.trimmed(), part.trimmed(), previous.section(QLatin1Char('='), 1).trimmed() + part.trimmed()));
        if (kv.size() != 2)
            throw InputError(field, QStringLiteral("\"%1\" must be name=value").arg(part));
        previous = part;
        const QString key = kv.at(0).trimmed().toLower();
        if (args.contains(key))
            throw InputError(field, QStringLiteral("%1 is given twice").arg(key));
        args.insert(key, kv.at(1).trimmed());
    }
    auto need = [&](const char *key) {
        const QString k = QString::fromLatin1(key);
        if (!args.contains(k))
            throw InputError(field, QStringLiteral("%1 needs %2=N").arg(kind, k));
        return parseLength(args.take(k), field + QLatin1Char(' ') + k);
    };
    LengthDistribution d;
    if (kind == QLatin1String("lognormal")) {
        const qint64 median = need("median");
        double p = 0.99;
        qint64 upper = 0;
        if (args.contains(QStringLiteral("p99")) && args.contains(QStringLiteral("p90")))
            throw InputError(field, QStringLiteral("give p99 or p90, not both"));
        if (args.contains(QStringLiteral("p90"))) {
            p = 0.90;
            upper = need("p90");
        } else {
            upper = need("p99");
        }
        const qint64 maximum = args.contains(QStringLiteral("max")) ? need("max") : 0;
        d = logNormal(double(median), double(upper), p, maximum, field);
    } else if (kind == QLatin1String("quantiles")) {
        QVector<QPair<double, qint64>> points;
        for (const auto &[key, p] : {std::pair{"p50", 0.5}, {"p90", 0.9}, {"p99", 0.99}, {"p99.9", 0.999}})
            if (args.contains(QString::fromLatin1(key)))
                points << qMakePair(p, need(key));
        d = quantiles(points, need("max"), field);
    } else {
        throw InputError(field, QStringLiteral("unknown distribution \"%1\"; use trace, lognormal, quantiles or fixed").arg(kind));
    }
    if (!args.isEmpty())
        throw InputError(field, QStringLiteral("unknown parameter %1").arg(args.firstKey()));
    d.spec = spec;
    return d;
}

LengthDistribution LengthDistribution::scaled(double factor, const QString &field) const
{
    if (factor == 1.0)
        return *this;
    if (!std::isfinite(factor) || !(factor > 0))
        throw InputError(field, QStringLiteral("must be a positive number, got %1").arg(factor));
    if (!(double(maximum()) * factor <= double(maxTokens)))
        throw InputError(field, QStringLiteral("x %1 makes the longest session %2 tokens, beyond 2^53")
                                    .arg(factor)
                                    .arg(double(maximum()) * factor, 0, 'g', 3));
    // In range: every length x factor <= the maximum's, <= 2^53.
    LengthDistribution d = mapped([factor](qint64 l) { return qint64(std::llround(double(l) * factor)); });
    d.meanOutputTokens *= factor;
    return d;
}

LengthDistribution LengthDistribution::mapped(const std::function<qint64(qint64)> &f) const
{
    LengthDistribution d = *this;
    auto map = [&f](const QVector<qint64> &ls, const QVector<double> &ps, QVector<qint64> &outL, QVector<double> &outP) {
        QMap<qint64, double> m;
        for (int i = 0; i < ls.size(); ++i)
            m[std::max<qint64>(1, f(ls.at(i)))] += ps.at(i);
        assign(m, outL, outP);
    };
    map(lengths, probabilities, d.lengths, d.probabilities);
    map(promptLengths, promptProbabilities, d.promptLengths, d.promptProbabilities);
    return d;
}

double LengthDistribution::mean() const
{
    double m = 0;
    for (int i = 0; i < lengths.size(); ++i)
        m += double(lengths.at(i)) * probabilities.at(i);
    return m;
}

qint64 LengthDistribution::quantile(double p) const
{
    double c = 0;
    for (int i = 0; i < lengths.size(); ++i) {
        c += probabilities.at(i);
        if (c >= p - 1e-12)
            return lengths.at(i);
    }
    return maximum();
}

double LengthDistribution::shareAbove(qint64 cap) const
{
    double s = 0;
    for (int i = 0; i < lengths.size(); ++i)
        if (lengths.at(i) > cap)
            s += probabilities.at(i);
    return s;
}

double LengthDistribution::meanDropped(qint64 cap) const
{
    double s = 0;
    for (int i = 0; i < lengths.size(); ++i)
        if (lengths.at(i) > cap)
            s += double(lengths.at(i) - cap) * probabilities.at(i);
    return s;
}

double LengthDistribution::meanDroppedByThoseLosing(qint64 cap) const
{
    const double share = shareAbove(cap);
    return share > 0 ? meanDropped(cap) / share : 0.0;
}

qint64 LengthDistribution::droppedQuantile(qint64 cap, double p) const
{
    const qint64 l = quantile(p);
    return std::max<qint64>(0, l - cap);
}

bool LengthDistribution::operator==(const LengthDistribution &o) const
{
    return kind == o.kind && spec == o.spec && lengths == o.lengths && probabilities == o.probabilities
        && promptLengths == o.promptLengths && promptProbabilities == o.promptProbabilities
        && arrivalRatePerSecond == o.arrivalRatePerSecond && meanOutputTokens == o.meanOutputTokens && requests == o.requests
        && conversations == o.conversations && sharedPrefixTokens == o.sharedPrefixTokens;
}

QDebug operator<<(QDebug dbg, const LengthDistribution &d)
{
    QDebugStateSaver saver(dbg);
    dbg.nospace() << "LengthDistribution(" << d.spec << ", " << d.lengths.size() << " lengths, mean " << d.mean() << ", max "
                  << d.maximum() << ')';
    return dbg;
}

} // namespace Headroom
