// SPDX-License-Identifier: GPL-3.0-or-later
#include "io/benchreading.h"

#include "core/inputerror.h"
#include "engines/logreading.h"

#include <QRegularExpression>
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <utility>

namespace Headroom {

namespace {

// The lines of a serving benchmark's result block Headroom reads. vLLM prints each as
// "{:<40} {:<10}".format(label, value) (vllm/benchmarks/serve.py), and SGLang's bench_serving,
// adapted from vLLM's benchmark_serving.py, the same way (python/sglang/bench_serving.py).
enum Label { Backend, Completed, MaxConcurrency, Concurrency, TotalInput, TotalOutput, OutputThroughput,
             MedianItl, MeanItl, MedianTpot, MeanTpot, MedianTtft, MeanTtft, LabelCount };

// One label's expression: group 1 the label as printed, group 2 the first word after its colon.
const std::array<QRegularExpression, LabelCount> &labelPatterns()
{
    static const std::array<QRegularExpression, LabelCount> patterns = [] {
        // vLLM: "Maximum request concurrency"; SGLang: "Max request concurrency", spelled "Max
        // reqeuest concurrency" in 0.4.0 (sgl-project/sglang issue 2805). SGLang's "Concurrency:"
        // is the measured mean in flight; the anchor keeps it from matching the other two.
        const std::array<const char *, LabelCount> words = {
            "Backend", "Successful requests", "Max(?:imum)? re(?:quest|qeuest) concurrency", "Concurrency", "Total input tokens",
            "Total generated tokens", "Output token throughput \\(tok/s\\)", "Median ITL \\(ms\\)", "Mean ITL \\(ms\\)",
            "Median TPOT \\(ms\\)", "Mean TPOT \\(ms\\)", "Median TTFT \\(ms\\)", "Mean TTFT \\(ms\\)"};
        std::array<QRegularExpression, LabelCount> out;
        for (int k = 0; k < LabelCount; ++k)
            out[size_t(k)] = LogParse::rx(QStringLiteral("^\\s*(%1):[ \\t]*(\\S*)").arg(QLatin1String(words[size_t(k)])));
        return out;
    }();
    return patterns;
}

// A value as printed, with its label and line.
struct Printed
{
    QString label;
    QString value;
    int line = 0;
};

// One result block: the line of its header and the values read under it.
struct Block
{
    int line = 0;
    std::array<std::optional<Printed>, LabelCount> values{};
};

// A time a block prints, in ms: NaN for "nan" (Python's mean of no values: no request generated
// two tokens), left out by the caller. Throws InputError naming the line for anything else that
// is not a number of 0 or more.
double timeOn(const Printed &p, const QString &field)
{
    if (p.value.compare(QLatin1String("nan"), Qt::CaseInsensitive) == 0)
        return std::numeric_limits<double>::quiet_NaN();
    bool ok = false;
    const double v = p.value.toDouble(&ok);
    if (!ok || !std::isfinite(v) || v < 0)
        throw InputError(field, QStringLiteral("line %1: \"%2:\" holds \"%3\", not a number of 0 or more").arg(p.line).arg(p.label, p.value));
    return v;
}

// "None" (vLLM's echo of an unset --max-concurrency) or "not set" (SGLang's): no limit.
bool unset(const Printed &p)
{
    return p.value.compare(QLatin1String("None"), Qt::CaseInsensitive) == 0 || p.value.compare(QLatin1String("not"), Qt::CaseInsensitive) == 0;
}

// The requests decoding together in a block, and where that comes from: SGLang's measured mean in
// flight, else the concurrency limit (at most the requests run), else Little's law over the
// decode (output tokens per second x seconds per output token). Throws InputError naming the
// block's line when none can be had.
std::pair<double, QString> batchOf(const Block &b, qint64 completed, const QString &field)
{
    if (const auto &c = b.values[Concurrency])
        if (const double v = timeOn(*c, field); v > 0)
            return {v, QStringLiteral("\"%1: %2\" on line %3, the measured mean in flight").arg(c->label, c->value).arg(c->line)};
    if (const auto &m = b.values[MaxConcurrency]; m && !unset(*m)) {
        const qint64 n = LogParse::count(m->value, m->line, field);
        if (n <= 0)
            throw InputError(field, QStringLiteral("line %1: \"%2: %3\": a run holds at least one request at a time").arg(m->line).arg(m->label, m->value));
        return {double(std::min(n, completed)), QStringLiteral("\"%1: %2\" on line %3").arg(m->label, m->value).arg(m->line)};
    }
    const auto &rate = b.values[OutputThroughput];
    const auto &step = b.values[MeanTpot] ? b.values[MeanTpot] : b.values[MeanItl];
    if (rate && step)
        if (const double v = timeOn(*rate, field) * timeOn(*step, field) / 1e3; v > 0)
            return {std::min(v, double(completed)), QStringLiteral("no concurrency printed: output throughput x %1 (lines %2 and %3)")
                                                        .arg(step->label).arg(rate->line).arg(step->line)};
    throw InputError(field, QStringLiteral("line %1: the result block prints no concurrency (\"Maximum request concurrency:\", SGLang's "
                                           "\"Concurrency:\") and no output throughput with a mean TPOT or ITL to estimate it from")
                                .arg(b.line));
}

// A count a block must print (the requests and token totals), read from its line.
qint64 required(const Block &b, Label label, const char *name, const QString &field)
{
    const auto &p = b.values[size_t(label)];
    if (!p)
        throw InputError(field, QStringLiteral("line %1: the result block has no \"%2:\" line, so a request's mean prompt and output are "
                                               "unknown: paste the whole block, from \"Serving Benchmark Result\" to its closing line of \"=\"")
                                    .arg(b.line).arg(QLatin1String(name)));
    return LogParse::count(p->value, p->line, field);
}

// The times of one block into `r`: TPOT and ITL as decode steps at the block's batch and mean
// context (prompt + half the output), TTFT as a prefill of the mean prompt. `several`: the paste
// holds more than one block, so each figure names its load.
void addServingFigures(const Block &b, bool several, BenchReading &r, const QString &field)
{
    const qint64 completed = required(b, Completed, "Successful requests", field);
    if (completed <= 0)
        throw InputError(field, QStringLiteral("line %1: no request succeeded, so the block times nothing").arg(b.values[Completed]->line));
    const double prompt = double(required(b, TotalInput, "Total input tokens", field)) / double(completed);
    const double output = double(required(b, TotalOutput, "Total generated tokens", field)) / double(completed);
    const auto [batch, basis] = batchOf(b, completed, field);
    const QString load = several ? QStringLiteral("concurrency %1").arg(batch, 0, 'g', 4) : QString();
    struct Wanted
    {
        Label label;
        BenchFigure::Kind kind;
        int rank;
    };
    using K = BenchFigure::Kind;
    for (const Wanted w : {Wanted{MedianItl, K::Decode, 0}, Wanted{MeanItl, K::Decode, 1}, Wanted{MedianTpot, K::Decode, 2},
                           Wanted{MeanTpot, K::Decode, 3}, Wanted{MedianTtft, K::Prefill, 0}, Wanted{MeanTtft, K::Prefill, 1}}) {
        const auto &p = b.values[size_t(w.label)];
        if (!p)
            continue;
        const double v = timeOn(*p, field);
        if (!(v > 0)) {
            r.notes << QStringLiteral("line %1: %2 is %3 (the run streamed no token times, or no request generated two tokens): left out.")
                           .arg(p->line).arg(p->label, p->value);
            continue;
        }
        // A microsecond to 10,000 s: beyond either no engine has printed a token time.
        if (v < 1e-3 || v > 1e7)
            throw InputError(field, QStringLiteral("line %1: %2 %3 is outside 0.001 ms to 10,000,000 ms: not a time a run prints").arg(p->line).arg(p->label, p->value));
        if (w.kind == K::Prefill && prompt < 1) {
            r.notes << QStringLiteral("line %1: %2 times a prompt of %3 tokens on average: left out.").arg(p->line).arg(p->label).arg(prompt, 0, 'g', 3);
            continue;
        }
        r.figures << BenchFigure{w.kind, p->label, load, v, QStringLiteral("ms"), batch, basis,
                                 w.kind == K::Decode ? prompt + output / 2 : prompt, p->line, w.rank};
    }
}

// Reads the serving benchmark's blocks of `lines` into `r`. A block runs from its header to its
// closing line of "="; a concurrency limit printed before a header (benchmark_serving.py printed
// "Maximum request concurrency: N" before the run) belongs to the block after it.
void readServing(const QStringList &lines, BenchReading &r, const QString &field)
{
    static const QRegularExpression header = LogParse::rx(QStringLiteral("Serving Benchmark Result"));
    static const QRegularExpression closing = LogParse::rx(QStringLiteral("^\\s*={20,}\\s*$"));
    static const QRegularExpression echo = LogParse::rx(QStringLiteral("Namespace\\(.*\\bmodel='([^']+)'"));
    std::optional<Block> block;
    std::optional<Printed> pending;
    QVector<Block> blocks;
    for (int i = 0; i < lines.size(); ++i) {
        const QString &line = lines.at(i);
        if (header.match(line).hasMatch()) {
            if (block)
                blocks << *block;
            block = Block{i + 1, {}};
            block->values[MaxConcurrency] = std::exchange(pending, std::nullopt);
            ++r.linesUsed;
        } else if (block && closing.match(line).hasMatch()) {
            blocks << *std::exchange(block, std::nullopt);
        } else if (const auto m = echo.match(line); m.hasMatch()) {
            r.model = m.captured(1);
            ++r.linesUsed;
        } else {
            for (int k = 0; k < LabelCount; ++k)
                if (const auto m = labelPatterns()[size_t(k)].match(line); m.hasMatch() && (block || k == MaxConcurrency)) {
                    (block ? block->values[size_t(k)] : pending) = Printed{m.captured(1).simplified(), m.captured(2), i + 1};
                    ++r.linesUsed;
                    break;
                }
        }
    }
    if (block)
        blocks << *block;
    for (const Block &b : std::as_const(blocks)) {
        if (b.values[Backend])
            r.tool = BenchReading::Tool::SglangServe;
        addServingFigures(b, blocks.size() > 1, r, field);
    }
}

// A markdown table row's cells, trimmed ("| a | b |" -> {"a", "b"}); empty when the line is no row.
QStringList cellsOf(const QString &line)
{
    const QString t = line.trimmed();
    if (t.size() < 2 || !t.startsWith(QLatin1Char('|')) || !t.endsWith(QLatin1Char('|')))
        return {};
    QStringList cells = t.mid(1, t.size() - 2).split(QLatin1Char('|'));
    for (QString &c : cells)
        c = c.trimmed();
    return cells;
}

// One llama-bench row (line `line`, under the header `header` of line `headerLine`) into `r`: a tg
// row as a decode step of one sequence at its depth + half its tokens, a pp row as a prefill of
// its tokens; a pp+tg row is left out with a note. Throws InputError naming the line.
void readRow(const QStringList &cells, const QStringList &header, int headerLine, int line, BenchReading &r, const QString &field)
{
    static const QRegularExpression test = LogParse::rx(QStringLiteral("^(pp|tg)\\s*(\\d+)(?:\\s*@\\s*d(\\d+))?$"));
    static const QRegularExpression mixed = LogParse::rx(QStringLiteral("^pp\\s*\\d+\\s*\\+\\s*tg\\s*\\d+"));
    static const QRegularExpression rate = LogParse::rx(QStringLiteral("^(\\d+(?:\\.\\d+)?)\\s*(?:±|\\+/-)\\s*\\d+(?:\\.\\d+)?$"));
    static const QRegularExpression size = LogParse::rx(QStringLiteral("^(\\d+(?:\\.\\d+)?) (GiB|MiB)$"));
    if (cells.size() != header.size())
        throw InputError(field, QStringLiteral("line %1: %2 cells where the table's header (line %3) has %4").arg(line).arg(cells.size()).arg(headerLine).arg(header.size()));
    const auto cell = [&](const char *name) { return cells.value(header.indexOf(QLatin1String(name))); };
    if (r.model.isEmpty())
        r.model = cell("model");
    else if (cell("model") != r.model)
        throw InputError(field, QStringLiteral("line %1: a second model (\"%2\" after \"%3\"): paste one model's rows at a time").arg(line).arg(cell("model"), r.model));
    if (const QString sizeCell = cell("size"); !sizeCell.isEmpty() && !r.weights) {
        const auto s = size.match(sizeCell);
        if (!s.hasMatch() || !(s.captured(1).toDouble() > 0))
            throw InputError(field, QStringLiteral("line %1: size \"%2\" is not a positive size in GiB or MiB, as llama-bench prints the weights").arg(line).arg(sizeCell));
        r.weights = LogParse::bytes(s.captured(1), s.captured(2), line, field);
    }
    if (mixed.match(cell("test")).hasMatch()) {
        r.notes << QStringLiteral("line %1: %2 times a prompt and a generation together: left out (the pp and tg rows time each alone).").arg(line).arg(cell("test"));
        return;
    }
    const auto t = test.match(cell("test"));
    if (!t.hasMatch())
        throw InputError(field, QStringLiteral("line %1: test \"%2\" is not a llama-bench pp or tg test (\"pp512\", \"tg128\", \"tg128 @ d4096\")").arg(line).arg(cell("test")));
    const auto v = rate.match(cell("t/s"));
    if (!v.hasMatch() || !(v.captured(1).toDouble() > 0))
        throw InputError(field, QStringLiteral("line %1: t/s \"%2\" is not a rate above 0 as llama-bench prints it (\"127.43 ± 0.18\")").arg(line).arg(cell("t/s")));
    const int tokens = LogParse::shape(t.captured(2), line, field, "the test's tokens");
    const qint64 depth = t.captured(3).isEmpty() ? 0 : LogParse::count(t.captured(3), line, field);
    const bool decode = t.captured(1).compare(QLatin1String("tg"), Qt::CaseInsensitive) == 0;
    r.figures << BenchFigure{decode ? BenchFigure::Kind::Decode : BenchFigure::Kind::Prefill, cell("test"), QString(), v.captured(1).toDouble(),
                             QStringLiteral("t/s"), 1, QStringLiteral("llama-bench runs one sequence"),
                             decode ? double(depth) + tokens / 2.0 : double(tokens), line, int(std::min<qint64>(depth, 1 << 30))};
}

// Reads every llama-bench table of `lines` into `r`: a header row naming model and test, its
// rule, then its rows; a line that is no row ends a table. Throws InputError naming a header
// without a t/s column.
void readLlamaBench(const QStringList &lines, BenchReading &r, const QString &field)
{
    static const QRegularExpression rule = LogParse::rx(QStringLiteral("^:?-+:?$"));
    r.tool = BenchReading::Tool::LlamaBench;
    QStringList header;
    int headerLine = 0;
    for (int i = 0; i < lines.size(); ++i) {
        const QStringList cells = cellsOf(lines.at(i));
        if (cells.isEmpty()) {
            header.clear();
        } else if (cells.contains(QLatin1String("model")) && cells.contains(QLatin1String("test"))) {
            if (!cells.contains(QLatin1String("t/s")))
                throw InputError(field, QStringLiteral("line %1: the llama-bench table has no \"t/s\" column: paste its markdown output "
                                                       "(-o md, the default) with every column").arg(i + 1));
            header = cells;
            headerLine = i + 1;
            ++r.linesUsed;
        } else if (!header.isEmpty() && !rule.match(cells.constFirst()).hasMatch()) {
            readRow(cells, header, headerLine, i + 1, r, field);
            ++r.linesUsed;
        }
    }
}

const QRegularExpression &tableHeader()
{
    static const QRegularExpression re = LogParse::rx(QStringLiteral("^\\s*\\|\\s*model\\s*\\|.*\\|\\s*test\\s*\\|"));
    return re;
}

} // namespace

double BenchFigure::fromMs(double ms) const
{
    if (unit != QLatin1String("t/s"))
        return ms;
    return (kind == Kind::Decode ? 1.0 : tokens) * 1e3 / ms;
}

QString BenchReading::toolName() const
{
    switch (tool) {
    case Tool::VllmServe: return QStringLiteral("vllm bench serve");
    case Tool::SglangServe: return QStringLiteral("sglang.bench_serving");
    case Tool::LlamaBench: return QStringLiteral("llama-bench");
    }
    return {};
}

bool BenchReading::recognises(const QString &text)
{
    if (text.contains(QLatin1String("Serving Benchmark Result"), Qt::CaseInsensitive))
        return true;
    QRegularExpression header = tableHeader();
    header.setPatternOptions(header.patternOptions() | QRegularExpression::MultilineOption);
    return header.match(text).hasMatch();
}

BenchReading BenchReading::read(const QString &text, const QString &field)
{
    QStringList lines = text.split(QLatin1Char('\n'));
    for (QString &line : lines)
        if (line.endsWith(QLatin1Char('\r')))
            line.chop(1);
    if (!lines.isEmpty() && lines.constLast().trimmed().isEmpty())
        lines.removeLast();
    BenchReading r;
    r.linesRead = int(lines.size());
    const bool serving = text.contains(QLatin1String("Serving Benchmark Result"), Qt::CaseInsensitive);
    const bool table = std::any_of(lines.cbegin(), lines.cend(), [](const QString &l) { return tableHeader().match(l).hasMatch(); });
    if (serving && table)
        throw InputError(field, QStringLiteral("the text holds a serving benchmark's result and a llama-bench table: paste one benchmark at a time"));
    if (serving)
        readServing(lines, r, field);
    else if (table)
        readLlamaBench(lines, r, field);
    else
        throw InputError(field, QStringLiteral("no benchmark result found: paste the block under \"Serving Benchmark Result\" (vllm bench serve, "
                                               "sglang.bench_serving) or llama-bench's table"));
    if (r.figures.isEmpty())
        throw InputError(field, QStringLiteral("the result prints no time to compare (TPOT, ITL, TTFT, a pp or tg row; read all %1 lines)").arg(r.linesRead));
    return r;
}

} // namespace Headroom
