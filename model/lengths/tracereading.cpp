// SPDX-License-Identifier: GPL-3.0-or-later
// Reading a trace file: the CSV and JSON-lines formats, one request at a time, into a length
// distribution, and the collecting trace that keeps each request (traffictrace.h).
#include "lengths/tracereading.h"
#include "core/filekind.h"

#include "core/inputerror.h"
#include "core/jsonnumbers.h"
#include "core/units.h"
#include "lengths/traceheader.h"
#include "lengths/traffictrace.h"

#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtEndian>
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <vector>

namespace Headroom {

namespace {

// The plain digits (ASCII 0-9) at p, at most `most` of them (at most 13) and none at or past
// `stop`, read into v; returns how many there were. Eight bytes at a time while eight
// remain: a byte is a digit when its high nibble is 3 and stays 3 with 6 added (simdjson's
// eight-digit test; a carry out of a byte comes only from a byte that is no digit, so the
// bytes before the first such one are judged right), and the first k of them make a number
// in three multiplications that each join neighbours (10a + b, 100ab + cd, 10^4 abcd + efgh),
// as a loop over the digits makes it. A digit at a time took a tenth of reading a trace.
constexpr quint64 powersOfTen[] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000, 10000000000,
                                   100000000000, 1000000000000, 10000000000000};

Q_ALWAYS_INLINE int leadingDigits(const char *p, const char *stop, int most, quint64 &v)
{
    constexpr quint64 nibbles = 0xF0F0F0F0F0F0F0F0u, threes = 0x3030303030303030u;
    int n = 0;
    v = 0;
    while (n < most && stop - (p + n) >= 8) {
        const quint64 w = qFromLittleEndian<quint64>(p + n);
        const quint64 nonDigit = ((w & nibbles) ^ threes) | (((w + 0x0606060606060606u) & nibbles) ^ threes);
        const int k = std::min(most - n, nonDigit ? int(qCountTrailingZeroBits(nonDigit)) / 8 : 8);
        if (k == 0)
            return n;
        // The k digits to the top bytes, the first the most significant: zero bytes below.
        quint64 x = (w << (8 * (8 - k))) & 0x0F0F0F0F0F0F0F0Fu;
        x = (x * 10 + (x >> 8)) & 0x00FF00FF00FF00FFu;
        x = (x * 100 + (x >> 16)) & 0x0000FFFF0000FFFFu;
        x = (x * 10000 + (x >> 32)) & 0xFFFFFFFFu;
        v = v * powersOfTen[k] + x;
        n += k;
        if (k < 8)
            return n;
    }
    for (; n < most && p + n < stop && unsigned(p[n] - '0') <= 9; ++n)
        v = v * 10 + unsigned(p[n] - '0');
    return n;
}

// Seconds of "yyyy-MM-dd HH:mm:ss[.fffffff]" (the start of the cell; what follows is
// ignored) from an arbitrary epoch (UTC, no time-zone lookups: a trace has millions of
// rows), or NaN when malformed. Read digit by digit: a regular expression per row
// took longer than the rest of the row. `day` keeps the last date (its 11 bytes, the
// separator after it included) and its Julian day: a trace's rows share a date, and
// reading it again, or QDate's checks, took a tenth of the row. `read`, when given,
// is set to the length of what was read (19, or past the fraction's last digit) when
// the stamp is well formed.
struct TraceDay
{
    char text[11] = {};
    qint64 julian = 0;
    bool valid = false;
};

double traceSeconds(QByteArrayView stamp, TraceDay &day, qsizetype *read = nullptr)
{
    if (stamp.size() < 19) // shorter than yyyy-MM-dd HH:mm:ss: every position below is in range
        return std::numeric_limits<double>::quiet_NaN();
    const char *p = stamp.data();
    // Two decimal digits at `at` as a number, -1 when either is not a digit (a pair at a
    // time, without a loop: the stamp was a fifth of reading a trace).
    const auto two = [p](qsizetype at) {
        const unsigned tens = unsigned(p[at] - '0'), units = unsigned(p[at + 1] - '0');
        return tens <= 9 && units <= 9 ? int(tens * 10 + units) : -1;
    };
    const auto is = [&](qsizetype at, char c) { return at < stamp.size() && p[at] == c; };
    if (std::memcmp(p, day.text, sizeof day.text) != 0) {
        const int century = two(0), yearOf = two(2), month = two(5), dayOfMonth = two(8);
        if (century < 0 || yearOf < 0 || !is(4, '-') || month < 0 || !is(7, '-') || dayOfMonth < 0 || !(is(10, ' ') || is(10, 'T')))
            return std::numeric_limits<double>::quiet_NaN();
        const QDate date(century * 100 + yearOf, month, dayOfMonth);
        std::memcpy(day.text, p, sizeof day.text);
        day.julian = date.toJulianDay();
        day.valid = date.isValid();
    }
    const int hours = two(11), minutes = two(14), whole = two(17);
    if (!day.valid || hours < 0 || !is(13, ':') || minutes < 0 || !is(16, ':') || whole < 0 || hours > 23 || minutes > 59 || whole > 60)
        return std::numeric_limits<double>::quiet_NaN();
    // The seconds with their fraction, when a digit follows the point: up to 13 digits
    // of it as one whole number over a power of ten (both exact in a double, so the
    // quotient is the correctly rounded value, as a decimal parser gives); longer ones parsed.
    qsizetype end = 19;
    quint64 scaled = quint64(whole), scale = 1;
    if (is(19, '.') && 20 < stamp.size() && stamp.at(20) >= '0' && stamp.at(20) <= '9') {
        quint64 fraction = 0;
        const int kept = leadingDigits(p + 20, p + std::min<qsizetype>(stamp.size(), 33), 13, fraction);
        scale = powersOfTen[kept];
        scaled = scaled * scale + fraction;
        for (end = 20 + kept; end < stamp.size() && unsigned(p[end] - '0') <= 9;)
            ++end;
    }
    const double seconds = end <= 33 ? double(scaled) / double(scale) : stamp.sliced(17, end - 17).toDouble();
    if (read)
        *read = end;
    return double(day.julian) * 86400.0 + double(hours) * 3600.0 + double(minutes) * 60.0 + seconds;
}

// Whether a cell starts or ends with ASCII white space (isspace in the C locale), which
// QByteArrayView::trimmed takes off: asked first, as no cell of a real trace does (the
// call on every cell was a tenth of the reading).
bool edgeSpace(QByteArrayView cell)
{
    const auto white = [](char c) { return c == ' ' || (c >= '\t' && c <= '\r'); };
    return !cell.isEmpty() && (white(cell.front()) || white(cell.back()));
}

// The cells of one line of a trace: split at commas outside double quotes, each trimmed
// of ASCII white space and, when a spreadsheet quoted it ("374"), of its quotes. (A
// std::vector, kept from line to line: its clear() keeps the storage and costs nothing,
// where QVarLengthArray's reallocates.)
void splitCells(QByteArrayView line, std::vector<QByteArrayView> &cells)
{
    cells.clear();
    const auto add = [&](QByteArrayView cell) {
        if (edgeSpace(cell))
            cell = cell.trimmed();
        if (cell.size() >= 2 && cell.front() == '"' && cell.back() == '"')
            cell = cell.sliced(1, cell.size() - 2).trimmed();
        cells.push_back(cell);
    };
    qsizetype from = 0;
    const char *const begin = line.data(), *const stop = begin + line.size();
    if (!std::memchr(begin, '"', size_t(line.size()))) { // no quotes: every comma splits
        for (const char *comma; (comma = static_cast<const char *>(std::memchr(begin + from, ',', size_t(stop - begin - from))));) {
            add(line.sliced(from, comma - begin - from));
            from = comma - begin + 1;
        }
        add(line.sliced(from));
        return;
    }
    bool quoted = false;
    for (qsizetype i = 0; i < line.size(); ++i) {
        if (line.at(i) == '"')
            quoted = !quoted;
        else if (line.at(i) == ',' && !quoted) {
            add(line.sliced(from, i - from));
            from = i + 1;
        }
    }
    add(line.sliced(from));
}

// Requests per length: a table indexed by the length up to 2^20 tokens (8 MiB at most,
// grown as lengths arrive; a hash lookup per row took longer than parsing it), a hash above.
class LengthCounts
{
public:
    void add(qint64 length)
    {
        if (length < dense) {
            if (length >= qint64(m_small.size()))
                m_small.resize(std::min<size_t>(size_t(dense), std::max<size_t>(size_t(length) + 1, 2 * m_small.size())), 0);
            ++m_small[size_t(length)];
        } else {
            ++m_large[length];
        }
    }
    // (length, requests), ascending.
    std::vector<std::pair<qint64, qint64>> sorted() const
    {
        std::vector<std::pair<qint64, qint64>> out;
        for (size_t l = 0; l < m_small.size(); ++l)
            if (m_small[l] > 0)
                out.emplace_back(qint64(l), m_small[l]);
        const size_t small = out.size();
        out.insert(out.end(), m_large.keyValueBegin(), m_large.keyValueEnd());
        std::sort(out.begin() + qint64(small), out.end());
        return out;
    }

private:
    static constexpr qint64 dense = qint64(1) << 20;
    std::vector<qint64> m_small;
    QHash<qint64, qint64> m_large;
};

// Counts of whole lengths into the sorted distinct form (each request weighs the same).
void assignCounts(const LengthCounts &counts, QVector<qint64> &lengths, QVector<double> &probs)
{
    const std::vector<std::pair<qint64, qint64>> sorted = counts.sorted();
    double total = 0;
    for (const auto &c : sorted)
        total += double(c.second);
    lengths.clear();
    probs.clear();
    lengths.reserve(qsizetype(sorted.size()));
    probs.reserve(qsizetype(sorted.size()));
    for (const auto &[length, count] : sorted) {
        lengths << length;
        probs << double(count) / total;
    }
}

// Reads a trace one line at a time, keeping only counts per distinct length.
class TraceReader
{
public:
    // `collect`, when given, receives every request (JSON lines only unless `everyFormat`),
    // with its arrival, prefix blocks and conversation id as the line gives them.
    TraceReader(const QString &path, const QString &field, TrafficTrace *collect = nullptr, bool everyFormat = false)
        : m_path(path)
        , m_field(field)
        , m_collect(collect)
        , m_collectCsv(everyFormat)
    {
    }

    // One line (its terminator removed), numbered from 1.
    void line(QByteArrayView raw, qint64 lineNo)
    {
        const QByteArrayView text = edgeSpace(raw) ? raw.trimmed() : raw;
        if (text.isEmpty())
            return;
        if (m_firstLine && text.startsWith('{'))
            m_jsonl = true;
        if (m_jsonl) {
            m_firstLine = false;
            jsonLine(text, lineNo);
            return;
        }
        splitCells(text, m_cells);
        if (m_firstLine) {
            m_firstLine = false;
            // A header names its columns with words; anything that reads as a number is data.
            if (!isTraceData(m_cells.back())) {
                header(lineNo);
                return;
            }
        }
        if (m_promptAndOutput) {
            const qint64 context = cell(m_contextCol, m_contextName, lineNo);
            const qint64 generated = cell(m_generatedCol, m_generatedName, lineNo);
            double t = std::numeric_limits<double>::quiet_NaN();
            if (m_timeCol >= 0) {
                const QByteArrayView stamp = m_timeCol < qsizetype(m_cells.size()) ? m_cells[size_t(m_timeCol)] : QByteArrayView();
                t = traceSeconds(stamp, m_day);
                bool plain = false; // BurstGPT: seconds as a number
                const double seconds = std::isfinite(t) ? t : stamp.toDouble(&plain);
                if (plain)
                    t = seconds;
                // A malformed time is refused as a malformed count is: read as untimed, it
                // moved the arrival rate without a word.
                if (!std::isfinite(t) || (plain && t < 0))
                    throw InputError(m_field, QStringLiteral("%1 line %2, %3: \"%4\" is not a time (yyyy-MM-dd HH:mm:ss[.f] "
                                                             "or seconds from 0)")
                                                  .arg(m_path)
                                                  .arg(lineNo)
                                                  .arg(m_timeName, QString::fromUtf8(stamp.first(std::min<qsizetype>(stamp.size(), 64)))));
            }
            request(context, generated, t, lineNo, m_contextName, m_generatedName);
        } else {
            if (m_cells.size() != 1)
                throw InputError(m_field, QStringLiteral("%1 line %2: expected one length per line").arg(m_path).arg(lineNo));
            const qint64 v = cell(0, QStringLiteral("length"), lineNo);
            if (v < 1)
                throw InputError(m_field, QStringLiteral("%1 line %2: a session of 0 tokens").arg(m_path).arg(lineNo));
            m_totals.add(v);
        }
        ++m_rows;
    }

    LengthDistribution result() const
    {
        if (m_rows == 0)
            throw InputError(m_field, QStringLiteral("%1 holds no lengths").arg(m_path));
        LengthDistribution d;
        d.kind = LengthDistribution::Kind::Trace;
        d.spec = QStringLiteral("trace:") + m_path;
        assignCounts(m_totals, d.lengths, d.probabilities);
        if (m_promptAndOutput) {
            assignCounts(m_prompts, d.promptLengths, d.promptProbabilities);
            d.meanOutputTokens = m_outputs / double(m_rows);
        }
        if (m_timed > 1 && m_lastArrival > m_firstArrival)
            d.arrivalRatePerSecond = double(m_timed - 1) / (m_lastArrival - m_firstArrival);
        if (!(d.arrivalRatePerSecond <= LengthDistribution::maxArrivalRatePerSecond))
            throw InputError(m_field, QStringLiteral("%1: %2 requests in %3 s is more than 10^9 requests per second; check the TIMESTAMP column")
                                          .arg(m_path)
                                          .arg(m_timed)
                                          .arg(m_lastArrival - m_firstArrival));
        d.requests = m_rows;
        return d;
    }

private:
    // One request: its resident tokens (prompt + generated), its prompt, and its arrival in
    // seconds (NaN when the trace gives none).
    void request(qint64 context, qint64 generated, double arrival, qint64 lineNo, const QString &contextName,
                 const QString &generatedName)
    {
        const qint64 total = context + generated; // both <= 2^53
        if (total > LengthDistribution::maxTokens || total < 1)
            refuseRequest(total, lineNo, contextName, generatedName);
        m_totals.add(total);
        m_prompts.add(std::max<qint64>(1, context));
        if (m_collect && (m_jsonl || m_collectCsv)) {
            TrafficRequest r;
            r.arrivalSeconds = arrival;
            r.promptTokens = context;
            r.outputTokens = generated;
            r.line = lineNo;
            r.firstBlock = m_blocksFrom;
            r.blockCount = qint32(qint64(m_collect->blocks.size()) - m_blocksFrom);
            r.conversation = m_conversation;
            m_collect->requests.append(r);
        }
        m_outputs += double(generated);
        if (std::isfinite(arrival)) {
            // The span from the earliest arrival to the latest, whatever the rows' order.
            if (m_timed++ == 0)
                m_firstArrival = m_lastArrival = arrival;
            m_firstArrival = std::min(m_firstArrival, arrival);
            m_lastArrival = std::max(m_lastArrival, arrival);
        }
    }

public:
    // A row as nearly every row of a real trace is, read in one pass over its bytes
    // where it starts, `rest` (the block from there on), with its line end: returns the
    // bytes it took (the line end included), or 0, having counted nothing, to leave the
    // line to line(), which then takes it as the same figures or refuses it in its own
    // words. Taken: each cell the row needs is plain digits (at most 16, up to 2^53
    // tokens) or, for the time, a stamp traceSeconds reads to its end (or plain digits,
    // whole seconds), ended by a comma or the line end; the cells skipped before the last
    // needed one hold no quote (a quote moves where cells split); the line ends in \n or
    // \r\n within `rest` (a lone \r, a line the block cuts, the file's last line without
    // an end: line()). Cells after the last needed one are skipped unread, as line()
    // takes nothing from them either. Splitting the rows into lines and then cells, and
    // reading each cell, took two thirds of the instructions of reading a trace.
    qsizetype quickRow(QByteArrayView rest, qint64 lineNo)
    {
        if (m_firstLine || m_jsonl)
            return 0;
        const char *p = rest.data();
        const char *const stop = p + rest.size();
        // Plain digits at p, at most `most` of them, into v; false when there is none.
        const auto digits = [&p, stop](qint64 &v, qsizetype most) {
            const char *const from = p;
            const char *const last = stop - from > most ? from + most : stop;
            for (v = 0; p < last && unsigned(*p - '0') <= 9; ++p)
                v = v * 10 + (*p - '0');
            return p > from;
        };
        // The length of the line end at p (\n or \r\n), 0 when there is none.
        const auto lineEnd = [&p, stop]() -> qsizetype {
            if (p < stop && *p == '\n')
                return 1;
            return stop - p >= 2 && p[0] == '\r' && p[1] == '\n' ? 2 : 0;
        };
        if (!m_promptAndOutput) { // one column of lengths
            qint64 v = 0;
            const qsizetype end = digits(v, 16) && v >= 1 && v <= LengthDistribution::maxTokens ? lineEnd() : 0;
            if (end == 0)
                return 0;
            m_totals.add(v);
            ++m_rows;
            return p - rest.data() + end;
        }
        qint64 context = 0, generated = 0;
        double t = std::numeric_limits<double>::quiet_NaN();
        for (qsizetype col = 0; col <= m_lastCol; ++col) {
            if (col > 0) {
                if (p == stop || *p != ',')
                    return 0;
                ++p;
            }
            if (col == m_contextCol || col == m_generatedCol) {
                qint64 v = 0;
                if (!digits(v, 16) || v > LengthDistribution::maxTokens)
                    return 0;
                (col == m_contextCol ? context : generated) = v;
            } else if (col == m_timeCol) {
                qsizetype read = 0;
                t = traceSeconds(QByteArrayView(p, stop), m_day, &read);
                if (std::isfinite(t)) {
                    p += read;
                } else { // BurstGPT: whole seconds (at most 15 digits: exact in a double, as toDouble reads them)
                    qint64 whole = 0;
                    if (!digits(whole, 15))
                        return 0;
                    t = double(whole);
                }
            } else {
                for (; p < stop && *p != ','; ++p)
                    if (*p == '"' || *p == '\n' || *p == '\r')
                        return 0;
            }
        }
        if (p < stop && *p == ',')
            while (p < stop && *p != '\n' && *p != '\r')
                ++p;
        const qsizetype end = lineEnd();
        if (end == 0)
            return 0;
        request(context, generated, t, lineNo, m_contextName, m_generatedName);
        ++m_rows;
        return p - rest.data() + end;
    }

private:
    // The refusal of a request of `total` tokens, beyond 2^53 or none (apart from request()
    // so that its messages stay out of the loop over rows).
    [[noreturn]] Q_DECL_COLD_FUNCTION Q_NEVER_INLINE void refuseRequest(qint64 total, qint64 lineNo, const QString &contextName,
                                                                       const QString &generatedName) const
    {
        if (total > LengthDistribution::maxTokens)
            throw InputError(m_field, QStringLiteral("%1 line %2: %3 + %4 is beyond 2^53 tokens").arg(m_path).arg(lineNo).arg(contextName, generatedName));
        throw InputError(m_field, QStringLiteral("%1 line %2: a request of 0 tokens").arg(m_path).arg(lineNo));
    }

    // The first line as a header: the columns it names (Azure's, BurstGPT's), or one column of
    // lengths; refused when it names neither.
    void header(qint64 lineNo)
    {
        // The Azure LLM inference traces' TIMESTAMP,ContextTokens,GeneratedTokens
        // (Azure/AzurePublicDataset) and BurstGPT's Timestamp,Model,Request tokens,
        // Response tokens,... (HPMLL/BurstGPT README: Timestamp in seconds).
        // A column named twice is refused naming both: which copy holds the lengths is a guess
        // (an attacker's second ContextTokens column of 9s was read in silence).
        const auto take = [&](qsizetype &col, size_t i) {
            if (col >= 0)
                throw InputError(m_field, QStringLiteral("%1 line %2: columns %3 and %4 are both \"%5\"; keep one")
                                              .arg(m_path).arg(lineNo).arg(col + 1).arg(i + 1).arg(QString::fromUtf8(m_cells.at(i))));
            col = qsizetype(i);
        };
        for (size_t i = 0; i < m_cells.size(); ++i) {
            const QByteArray h = m_cells.at(i).toByteArray().toLower();
            if (h == "contexttokens" || h == "request tokens")
                take(m_contextCol, i);
            else if (h == "generatedtokens" || h == "response tokens")
                take(m_generatedCol, i);
            else if (h == "timestamp")
                take(m_timeCol, i);
        }
        // One cell holding another separator: a spreadsheet's semicolon or tab export.
        if (m_cells.size() == 1)
            for (const char sep : {';', '\t'})
                if (m_cells.front().contains(sep))
                    throw InputError(m_field, QStringLiteral("%1 line %2: the header is separated by %3, not commas; save the trace as "
                                                             "comma-separated values (CSV)")
                                                  .arg(m_path).arg(lineNo).arg(sep == ';' ? QStringLiteral("semicolons") : QStringLiteral("tabs")));
        m_promptAndOutput = m_contextCol >= 0 && m_generatedCol >= 0;
        m_lastCol = std::max({m_contextCol, m_generatedCol, m_timeCol});
        if (m_promptAndOutput) {
            m_contextName = QString::fromUtf8(m_cells.at(size_t(m_contextCol)));
            m_generatedName = QString::fromUtf8(m_cells.at(size_t(m_generatedCol)));
            if (m_timeCol >= 0)
                m_timeName = QString::fromUtf8(m_cells.at(size_t(m_timeCol)));
        }
        if (!m_promptAndOutput && m_cells.size() != 1)
            throw InputError(m_field, QStringLiteral("%1 line %2: expected the Azure trace header "
                                                     "TIMESTAMP,ContextTokens,GeneratedTokens, BurstGPT's "
                                                     "Timestamp,...,Request tokens,Response tokens,..., "
                                                     "one column of lengths, or Mooncake's JSON lines")
                                          .arg(m_path).arg(lineNo));
    }

    // A Mooncake trace line (kvcache-ai/Mooncake mooncake_trace.jsonl, as NVIDIA Dynamo's
    // benchmarks/data_generator README describes it): {"timestamp": arrival in
    // milliseconds, "input_length": N, "output_length": N, "hash_ids": [...]}.
    void jsonLine(QByteArrayView text, qint64 lineNo)
    {
        m_promptAndOutput = true;
        QJsonParseError err{};
        const QJsonDocument doc = QJsonDocument::fromJson(text.toByteArray(), &err);
        if (err.error != QJsonParseError::NoError || !doc.isObject())
            throw InputError(m_field, QStringLiteral("%1 line %2: %3; a JSON-lines trace holds one object per line "
                                                     "(Mooncake: timestamp, input_length, output_length)")
                                          .arg(m_path)
                                          .arg(lineNo)
                                          .arg(err.error != QJsonParseError::NoError ? err.errorString() : QStringLiteral("not a JSON object")));
        const QJsonObject o = doc.object();
        try {
            const qint64 input = JsonNumbers::whole(o, "input_length", -1, 0, LengthDistribution::maxTokens);
            const qint64 output = JsonNumbers::whole(o, "output_length", -1, 0, LengthDistribution::maxTokens); // required: 0 would be optimistic
            if (m_collect)
                prefixAndConversation(o, input);
            const QJsonValue stamp = o.value(QStringLiteral("timestamp"));
            const double arrival = stamp.isUndefined() || stamp.isNull()
                ? std::numeric_limits<double>::quiet_NaN()
                : JsonNumbers::real(stamp, QStringLiteral("timestamp"), 0, 1e15) / 1000.0;
            request(input, output, arrival, lineNo, QStringLiteral("input_length"), QStringLiteral("output_length"));
        } catch (const InputError &e) {
            if (e.field() == m_field)
                throw;
            throw InputError(m_field, QStringLiteral("%1 line %2, %3").arg(m_path).arg(lineNo).arg(e.text()));
        }
        ++m_rows;
    }

    // A JSON line's prefix blocks ("hash_ids": whole ids from 0 to 2^53, at most one per
    // block of the prompt) and conversation ("conversation_id" or "session_id": a string or a
    // number), appended to the collecting trace. Throws InputError naming the key.
    void prefixAndConversation(const QJsonObject &o, qint64 prompt)
    {
        m_blocksFrom = qint64(m_collect->blocks.size());
        m_conversation = -1;
        const QJsonValue ids = o.value(QStringLiteral("hash_ids"));
        if (!ids.isUndefined() && !ids.isNull()) {
            if (!ids.isArray())
                throw InputError(QStringLiteral("hash_ids"), QStringLiteral("must be a list of prefix-block ids"));
            const QJsonArray list = ids.toArray();
            // One id per block of the prompt, the last one partial (Mooncake's traces: every line).
            const qint64 blocks = (prompt + m_collect->blockTokens - 1) / m_collect->blockTokens;
            if (!list.isEmpty() && list.size() != blocks)
                throw InputError(QStringLiteral("hash_ids"), QStringLiteral("%1 blocks for a prompt of %2 tokens, which has %3 of %4 tokens")
                                                                 .arg(list.size()).arg(prompt).arg(blocks).arg(m_collect->blockTokens));
            constexpr double exact = double(qint64(1) << 53);
            for (qsizetype k = 0; k < list.size(); ++k) {
                const QJsonValue v = list.at(k);
                const double x = v.toDouble(-1);
                // Below 2^53: at and past it a JSON number read as a double is no longer exact
                // (2^53 + 1 reads as 2^53), so two ids could silently become one.
                if (!v.isDouble() || !(x >= 0 && x < exact) || x != std::floor(x))
                    throw InputError(QStringLiteral("hash_ids[%1]").arg(k),
                                     QStringLiteral("a block id is a whole number from 0 to below 2^53 (at and past it a JSON number is not exact)"));
                m_collect->blocks.push_back(qint64(x));
            }
            m_collect->hasBlocks = m_collect->hasBlocks || !list.isEmpty();
        }
        for (const char *key : {"conversation_id", "session_id"}) {
            const QJsonValue id = o.value(QLatin1String(key));
            if (id.isUndefined() || id.isNull())
                continue;
            if (!id.isString() && !id.isDouble())
                throw InputError(QLatin1String(key), QStringLiteral("must be a string or a number"));
            const QString name = id.isString() ? id.toString() : QString::number(id.toDouble(), 'g', 17);
            m_conversation = qint32(m_conversationIds.size());
            if (const auto it = m_conversationIds.constFind(name); it != m_conversationIds.cend())
                m_conversation = it.value();
            else
                m_conversationIds.insert(name, m_conversation);
            m_collect->hasConversationIds = true;
            break;
        }
    }

    qint64 cell(qsizetype col, const QString &name, qint64 lineNo) const
    {
        const QByteArrayView c = col < qsizetype(m_cells.size()) ? m_cells[size_t(col)] : QByteArrayView();
        // Plain digits (every cell of a real trace) read in place: std::from_chars takes what
        // toLongLong takes of them, at a tenth of the cost; anything else is read below.
        qint64 v = 0;
        const auto [end, why] = std::from_chars(c.data(), c.data() + c.size(), v);
        bool ok = !c.isEmpty() && why == std::errc() && end == c.data() + c.size();
        if (!ok)
            v = c.toLongLong(&ok);
        if (!ok) {
            // Plain digits above; any other spelling ("1,000" from a spreadsheet, 1e5, 8k) is read
            // as every count is (Units::parseCount, as the flags read it), or refused in its words.
            try {
                v = Units::parseCount(QString::fromUtf8(c), QString(), 0);
            } catch (const InputError &e) {
                throw InputError(m_field, QStringLiteral("%1 line %2, %3: %4").arg(m_path).arg(lineNo).arg(name, e.message()));
            }
        }
        if (v < 0)
            throw InputError(m_field, QStringLiteral("%1 line %2, %3: a length cannot be negative (%4)").arg(m_path).arg(lineNo).arg(name).arg(v));
        if (v > LengthDistribution::maxTokens)
            throw InputError(m_field, QStringLiteral("%1 line %2, %3: %4 tokens is beyond 2^53").arg(m_path).arg(lineNo).arg(name).arg(v));
        return v;
    }

    const QString &m_path;
    const QString &m_field;
    std::vector<QByteArrayView> m_cells;
    LengthCounts m_totals, m_prompts;
    TraceDay m_day;
    double m_outputs = 0, m_firstArrival = 0, m_lastArrival = 0;
    qint64 m_rows = 0, m_timed = 0;
    qsizetype m_contextCol = -1, m_generatedCol = -1, m_timeCol = -1, m_lastCol = -1;
    QString m_contextName, m_generatedName, m_timeName;
    bool m_promptAndOutput = false, m_jsonl = false, m_firstLine = true;
    TrafficTrace *const m_collect;
    const bool m_collectCsv;
    qint64 m_blocksFrom = 0;    // the current line's first block in m_collect->blocks
    qint32 m_conversation = -1; // the current line's named conversation
    QHash<QString, qint32> m_conversationIds;
};

} // namespace

LengthDistribution readTraceFile(const QString &path, const QString &field, qint64 maxBytes, TrafficTrace *collect, bool everyFormat)
{
    const QFileInfo info(path);
    if (!info.isFile())
        throw InputError(field, QStringLiteral("%1 is not a readable file").arg(path));
    if (info.size() > maxBytes)
        throw InputError(field, QStringLiteral("%1 is larger than %2 MiB; sample it first").arg(path).arg(maxBytes / Units::MiB));
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        throw InputError(field, QStringLiteral("cannot read %1: %2").arg(path, f.errorString()));
    // Read 1 MiB at a time and parsed as bytes in place (memory stays at a block and a
    // count per distinct length, whatever the file's size). Any line ending: \n, \r\n or a
    // lone \r (spreadsheets' "CSV (Macintosh)"); a UTF-8 byte-order mark is skipped.
    TraceReader reader(path, field, collect, everyFormat);
    constexpr qsizetype block = qsizetype(1) << 20;
    QByteArray buffer;
    qint64 lineNo = 0, read = 0; // lines parsed, bytes read
    for (bool first = true;; first = false) {
        const qsizetype kept = buffer.size();
        buffer.resize(kept + block);
        const qint64 got = f.read(buffer.data() + kept, block);
        if (got < 0)
            throw InputError(field, QStringLiteral("cannot read %1: %2").arg(path, f.errorString()));
        buffer.resize(kept + qsizetype(got));
        // A NUL byte ends a number where the reader stops (20\000 read as 20): a trace is text.
        if (const void *nul = got > 0 ? std::memchr(buffer.constData() + kept, '\0', size_t(got)) : nullptr)
            throw InputError(field, QStringLiteral("%1 holds a NUL byte at byte %2: a trace is plain text (UTF-16, or not a trace?)")
                                        .arg(path)
                                        .arg(read + qint64(static_cast<const char *>(nul) - (buffer.constData() + kept)) + 1));
        read += got;
        const bool end = got == 0;
        if (first && buffer.startsWith("\xEF\xBB\xBF"))
            buffer.remove(0, 3);
        if (first) // a scenario, config.json or log given as a trace is named as what it is
            FileKind::expect(path, buffer,
                             {FileKind::Kind::TraceCsv, FileKind::Kind::TraceJsonLines, FileKind::Kind::TraceLengths}, QStringLiteral("a trace"), field);
        const QByteArrayView data(buffer);
        qsizetype from = 0;
        // The next \n and the next \r at or after `from` (data.size() when none), each found
        // by memchr and looked for again only once passed: the block is read once.
        const auto next = [&data](char c, qsizetype at) {
            if (at >= data.size()) // (an empty block has no data pointer to give memchr)
                return data.size();
            const void *hit = std::memchr(data.data() + at, c, size_t(data.size() - at));
            return hit ? static_cast<const char *>(hit) - data.data() : data.size();
        };
        qsizetype lf = next('\n', 0), cr = next('\r', 0);
        for (;;) {
            if (const qsizetype took = reader.quickRow(data.sliced(from), lineNo + 1)) {
                ++lineNo;
                from += took;
                continue;
            }
            if (lf < from)
                lf = next('\n', from);
            if (cr < from)
                cr = next('\r', from);
            qsizetype i = std::min(lf, cr);
            if (i >= data.size())
                break;
            const char c = data.at(i);
            if (c == '\r' && i + 1 == data.size() && !end)
                break; // perhaps the first half of a \r\n: wait for the next block
            reader.line(data.sliced(from, i - from), ++lineNo);
            if (c == '\r' && i + 1 < data.size() && data.at(i + 1) == '\n')
                ++i;
            from = i + 1;
        }
        if (end) {
            if (from < data.size())
                reader.line(data.sliced(from), ++lineNo);
            break;
        }
        buffer.remove(0, from);
    }
    return reader.result();
}

void lengthsPerConversation(TrafficTrace &traffic, LengthDistribution &d)
{
    // Per conversation: its longest request (its history at the last turn), the shared prefix
    // left out (held once per card); each conversation weighs the same.
    traffic.buildConversations();
    const qint64 prefix = traffic.commonPrefixTokens();
    std::vector<qint64> longest(size_t(traffic.conversations), 0), prompt(size_t(traffic.conversations), 0);
    std::vector<char> shares(size_t(traffic.conversations), 0);
    for (const TrafficRequest &r : std::as_const(traffic.requests)) {
        const auto c = size_t(r.conversation);
        if (r.promptTokens + r.outputTokens > longest[c]) {
            longest[c] = r.promptTokens + r.outputTokens;
            prompt[c] = r.promptTokens;
            shares[c] = r.holdsCommonPrefix;
        }
    }
    LengthCounts totals, prompts;
    for (size_t c = 0; c < longest.size(); ++c) {
        // Only a conversation whose longest request starts with the whole shared prefix has it to
        // leave out (an attacker's two conversations without it were cut to 612 tokens of 10,852);
        // one within the prefix keeps its own length.
        const qint64 leftOut = shares[c] && longest[c] > prefix ? prefix : 0;
        totals.add(std::max<qint64>(1, longest[c] - leftOut));
        prompts.add(std::max<qint64>(1, prompt[c] - leftOut));
    }
    assignCounts(totals, d.lengths, d.probabilities);
    assignCounts(prompts, d.promptLengths, d.promptProbabilities);
    d.conversations = traffic.conversations;
    d.sharedPrefixTokens = prefix;
}

} // namespace Headroom
