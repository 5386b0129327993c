// SPDX-License-Identifier: GPL-3.0-or-later
#include "io/logcalibration.h"
#include "engines/enginerule.h"
#include "plan/capacity.h"
#include "core/inputerror.h"
#include "core/units.h"
#include "io/patternindex.h"

#include <QJsonArray>
#include <functional>
#include <QRegularExpression>
#include <QStringTokenizer>
#include <array>
#include <vector>
#include <cmath>

namespace Headroom {

namespace {
// The figures of a reading that a scenario takes, by the input they set.
QVector<std::pair<Input, std::optional<qint64>>> figuresOf(const LogReading &r)
{
    auto wide = [](const std::optional<int> &v) { return v ? std::optional<qint64>(*v) : std::nullopt; };
    return {{Input::Tp, wide(r.tp)}, {Input::MaxModelLen, r.maxModelLen}, {Input::GpuMemory, r.totalMemory}, {Input::Weights, r.weights},
            {Input::NonTorch, r.nonTorch}, {Input::ActivationPeak, r.activationPeak}, {Input::CudaGraph, r.cudaGraph},
            {Input::KvCacheMemory, r.kvBudget}, {Input::FreeMemoryBefore, r.freeBefore}, {Input::FreeMemoryAfter, r.freeAfter},
            {Input::MaxNumSeqs, r.maxNumSeqs}, {Input::MaxNumBatchedTokens, r.maxNumBatchedTokens},
            {Input::NSeq, wide(r.nSeq)}, {Input::NCtx, r.kvCells}, {Input::NCtx, r.ctxSize}, {Input::Model, wide(r.layers)}, {Input::Model, wide(r.kvHeads)},
            {Input::Model, wide(r.headDim)}};
}
// The KV-cache sizes and card figures of a reading, by the engine's own words: each must be above
// 0 when read (a pool of 0 or fewer tokens, blocks or bytes is no figure to compare).
QVector<std::pair<const char *, std::optional<qint64>>> sizesOf(const LogReading &r)
{
    return {{"the KV cache memory", r.kvBudget}, {"the KV cache's token count", r.kvTokens}, {"the KV cache's block count", r.numBlocks},
            {"the KV self size", r.kvSelf}, {"memory.required.kv", r.requiredKv}, {"the card's total memory", r.totalMemory},
            {"the KV cache one request needs", r.kvNeeded}, {"the free memory before loading", r.freeBefore}};
}
// Every engine's start-up lines (each engine's rule, model/engines/), reading into `r`, and a
// failed start any PyTorch engine prints (vLLM, SGLang: torch's caching allocator):
// "CUDA out of memory. Tried to allocate 4.00 GiB. GPU 3 has a total capacity of 184.00 GiB
// of which 2.21 GiB is free."
QVector<LogPattern> logPatterns(LogReading &r, const QString &field)
{
    QVector<LogPattern> patterns;
    for (Engine e : Engines::all())
        Engines::rule(e).addLogPatterns(patterns, r, field);
    patterns << LogPattern{LogParse::rx(QStringLiteral("CUDA out of memory\\. Tried to allocate ") + LogParse::number() + LogParse::unit()
                                        + QStringLiteral("(?:\\. GPU (\\d+) has a total capacity of ") + LogParse::number() + LogParse::unit()
                                        + QStringLiteral(" of which ") + LogParse::number() + LogParse::unit() + QStringLiteral(" is free)?")),
                           [&r](const QRegularExpressionMatch &m, int l) {
                               QString what = QStringLiteral("line %1: the engine ran out of GPU memory allocating %2 %3").arg(l).arg(m.captured(1), m.captured(2));
                               if (m.hasCaptured(3))
                                   what += QStringLiteral(" on GPU %1, with %2 %3 of its %4 %5 free").arg(m.captured(3), m.captured(6), m.captured(7), m.captured(4), m.captured(5));
                               r.fail(QStringLiteral("cuda-oom"), what + QStringLiteral(", so it did not start: the memory it holds at that point (weights, "
                                                                                         "a reserved KV pool) leaves too little for the rest."));
                           }};
    return patterns;
}

// The lines of `text` as views into it, never copies, without a last blank line.
QVector<QStringView> linesOf(const QString &text)
{
    QVector<QStringView> lines;
    for (const QStringView line : QStringTokenizer(text, u'\n'))
        lines << line;
    if (!lines.isEmpty() && lines.last().trimmed().isEmpty())
        lines.removeLast();
    return lines;
}

// One reading of a start-up log: the patterns of every engine read figures into m_r, line by
// line, keeping one start-up when the engine restarted. Not copied or moved: the patterns
// hold a reference to m_r.
class StartupReader
{
public:
    explicit StartupReader(const QString &field) : m_field(field), m_patterns(logPatterns(m_r, m_field)), m_index(m_patterns) {}
    Q_DISABLE_COPY_MOVE(StartupReader)

    // Reads every line of `text` (LogCalibration::read) and returns the start-up read.
    LogReading read(const QString &text);

private:
    // A start-up before the one being read, kept when complete.
    struct Run
    {
        LogReading reading;
        int from = 0, to = 0;
        std::array<int, 8> sizeLine{};
    };

    void readLines(const QVector<QStringView> &lines);
    bool readRecord(QStringView line, int number);
    void restartOnBanner(QStringView line, int number, const std::vector<bool> &candidate);
    bool takeFigures(QStringView line, int number, const std::vector<bool> &candidate);
    void refuseMixedEngines(Engine before, int number);
    void keepOneStartup();
    void refuseEmptySizes() const;
    void failOnRefusal();
    void refuseWithoutKvFigure() const;

    LogReading m_r;
    const QString m_field;
    const QVector<LogPattern> m_patterns;
    PatternIndex m_index;
    std::array<int, 8> m_sizeLine{}; // the line each of sizesOf's figures was last set on, in this run
    std::optional<Run> m_lastComplete;
    int m_runStart = 1, m_runsBefore = 0, m_linesUsed = 0;
};

LogReading StartupReader::read(const QString &text)
{
    const QVector<QStringView> lines = linesOf(text);
    m_r.linesRead = int(lines.size());
    readLines(lines);
    keepOneStartup();
    m_r.linesRead = int(lines.size());
    m_r.linesUsed = m_linesUsed;
    refuseEmptySizes();
    if (QStringView(text).trimmed().isEmpty())
        throw InputError(m_field, QStringLiteral("the log is empty: paste the engine's start-up log, from the model config to the KV cache size."));
    failOnRefusal();
    refuseWithoutKvFigure();
    return m_r;
}

// Reads each line's records, counting the lines a figure was read from. Terminal colour codes
// (ESC [ ... m, as vLLM and llama.cpp print them to a terminal) are not text: they are taken
// out before a line is read. A carriage return inside a line (a tee'd progress bar redrawn over
// itself, or CRLF) ends a record as a newline does; the records keep the line's number.
void StartupReader::readLines(const QVector<QStringView> &lines)
{
    const QRegularExpression ansi = LogParse::rx(QStringLiteral("\\x1b\\[[0-9;?]*[a-z]"));
    QString plain;
    QVector<QStringView> records;
    for (int i = 0; i < lines.size(); ++i) {
        QStringView whole = lines.at(i);
        if (whole.contains(u'\x1b')) {
            plain = whole.toString();
            plain.remove(ansi);
            whole = plain;
        }
        records.clear();
        for (const QStringView part : QStringTokenizer(whole, u'\r'))
            records << part;
        bool used = false;
        for (const QStringView record : std::as_const(records))
            used = readRecord(record, i + 1) || used;
        m_linesUsed += used;
    }
}

// One record of line `number` (1-based): true when a pattern read a figure from it.
bool StartupReader::readRecord(QStringView line, int number)
{
    const std::vector<bool> &candidate = m_index.candidates(line);
    restartOnBanner(line, number, candidate);
    const Engine before = m_r.engine;
    const bool used = takeFigures(line, number, candidate);
    refuseMixedEngines(before, number);
    return used;
}

// A start-of-run banner of the log's own engine after measured figures: the engine
// restarted. The run read so far is kept aside when complete, and the reading starts
// again from this line. (Another engine's banner is another engine's log, refused below.)
void StartupReader::restartOnBanner(QStringView line, int number, const std::vector<bool> &candidate)
{
    const auto sameEngine = [&](Engine banner) {
        return banner == m_r.engine || (banner == Engine::Ollama && m_r.engine == Engine::LlamaCpp);
    };
    for (qsizetype k = 0; k < m_patterns.size(); ++k)
        if (m_patterns.at(k).startsRun != Engine::Plain && candidate[size_t(k)] && m_r.hasMeasurements() && sameEngine(m_patterns.at(k).startsRun)
            && m_patterns.at(k).re.match(line).hasMatch()) {
            if (m_r.hasKvFigure() || !m_r.failures.isEmpty() || m_r.refusalLine)
                m_lastComplete = Run{m_r, m_runStart, number - 1, m_sizeLine};
            ++m_runsBefore;
            m_r = LogReading{};
            m_sizeLine = {};
            m_runStart = number;
            break;
        }
}

// Runs every candidate pattern on the record; true when one matched. A figure a match set is
// named by its line, in the engine's own words, and the line each size was last set on is kept
// for the check of the run's sizes at the end.
bool StartupReader::takeFigures(QStringView line, int number, const std::vector<bool> &candidate)
{
    bool used = false;
    for (qsizetype k = 0; k < m_patterns.size(); ++k) {
        const LogPattern &p = m_patterns.at(k);
        if (!candidate[size_t(k)])
            continue;
        const auto m = p.re.match(line);
        if (!m.hasMatch())
            continue;
        const auto before = figuresOf(m_r);
        const auto sizes = sizesOf(m_r);
        p.take(m, number);
        used = true;
        const auto now = sizesOf(m_r);
        for (int j = 0; j < now.size(); ++j)
            if (now.at(j).second != sizes.at(j).second)
                m_sizeLine[size_t(j)] = number;
        const auto after = figuresOf(m_r);
        for (int j = 0; j < after.size(); ++j)
            if (after.at(j).second != before.at(j).second)
                m_r.names.set(after.at(j).first, QStringLiteral("%1 line %2 (%3)").arg(m_field).arg(number).arg(m.captured(0).trimmed()));
    }
    return used;
}

// Ollama's server.log holds its llama.cpp runner's lines: together they are an Ollama log.
// Any other engine's line in a log of engine `before` is refused, naming line `number`.
void StartupReader::refuseMixedEngines(Engine before, int number)
{
    const auto ollamaRunner = [](Engine a, Engine b) { return (a == Engine::Ollama && b == Engine::LlamaCpp) || (a == Engine::LlamaCpp && b == Engine::Ollama); };
    if (before != Engine::Plain && m_r.engine != before && ollamaRunner(before, m_r.engine))
        m_r.engine = Engine::Ollama;
    if (before != Engine::Plain && m_r.engine != before)
        throw InputError(m_field, QStringLiteral("line %1: a %2 line in a %3 log: paste one engine's start-up at a time")
                                      .arg(number).arg(Engines::name(m_r.engine), Engines::name(before)));
}

// One start-up: the last, or the last complete one when the last printed no KV figure; a note
// says which was read.
void StartupReader::keepOneStartup()
{
    const bool lastIsComplete = m_r.hasKvFigure() || !m_r.failures.isEmpty() || m_r.refusalLine;
    if (!lastIsComplete && m_lastComplete) {
        const int cut = m_runStart;
        m_r = m_lastComplete->reading;
        m_sizeLine = m_lastComplete->sizeLine;
        m_r.notes << QStringLiteral("The log holds %1 start-ups (the engine restarted): the last, from line %2, printed no KV-cache figure "
                                    "(cut off?), so the one before it, lines %3 to %4, was read.")
                         .arg(m_runsBefore + 1).arg(cut).arg(m_lastComplete->from).arg(m_lastComplete->to);
    } else if (m_runsBefore > 0) {
        m_r.notes << QStringLiteral("The log holds %1 start-ups (the engine restarted): the last, from line %2, was read; %3 before it skipped "
                                    "(lines 1 to %4), so no figure of one run is mixed with another's.")
                         .arg(m_runsBefore + 1).arg(m_runStart).arg(m_runsBefore == 1 ? QStringLiteral("the one") : QStringLiteral("the %1").arg(m_runsBefore))
                         .arg(m_runStart - 1);
    }
}

// A size of 0 (a pool of no tokens, no blocks, no bytes) is no figure to compare: refused,
// naming the line that set it. Checked on the run's last values: llama.cpp prints an iSWA
// model's empty cache of 0 layers as "size = 0.00 MiB" before the cache that holds the KV.
// (A negative figure is refused where it is read, LogParse.)
void StartupReader::refuseEmptySizes() const
{
    const auto sizes = sizesOf(m_r);
    for (int k = 0; k < sizes.size(); ++k)
        if (sizes.at(k).second && *sizes.at(k).second <= 0)
            throw InputError(m_field, QStringLiteral("line %1: %2 is %3: a KV-cache or memory figure must be above 0, so there is nothing to "
                                                     "compare; paste a start-up whose engine sized its cache")
                                          .arg(m_sizeLine[size_t(k)]).arg(QString::fromLatin1(sizes.at(k).first)).arg(*sizes.at(k).second));
}

// vLLM V1's refusal of max_model_len, from its parts (they may sit on different lines of a
// wrapped paste), as the reading's failure.
void StartupReader::failOnRefusal()
{
    if (!m_r.refusalLine)
        return;
    QString what = QStringLiteral("line %1: vLLM refused to start: one request").arg(m_r.refusalLine);
    if (m_r.maxModelLen)
        what += QStringLiteral(" of max_model_len %1").arg(Units::formatCount(*m_r.maxModelLen));
    if (m_r.kvNeeded)
        what += QStringLiteral(" needs %1 of KV cache per GPU").arg(Units::formatIn(*m_r.kvNeeded, Units::GiB, QStringLiteral("GiB"), 2));
    what += m_r.kvBudget ? QStringLiteral(", more than the %1 the pool holds").arg(Units::formatIn(*m_r.kvBudget, Units::GiB, QStringLiteral("GiB"), 2))
                         : QStringLiteral(", more than the pool holds");
    what += QStringLiteral(", so not one request of full length fits");
    if (m_r.estimatedMaxLen)
        what += QStringLiteral("; vLLM estimates the longest that fits at %1 tokens (lower --max-model-len to it, or raise gpu_memory_utilization)")
                    .arg(Units::formatCount(*m_r.estimatedMaxLen));
    m_r.fail(QStringLiteral("vllm-max-model-len"), what + QLatin1Char('.'));
}

// Refuses a reading with no KV-cache figure to compare: a failed start, or no engine line.
void StartupReader::refuseWithoutKvFigure() const
{
    const LogReading &r = m_r;
    if (!r.kvBudget && !r.kvTokens && !r.numBlocks && !r.kvSelf && !r.requiredKv && !r.failures.isEmpty())
        throw InputError(m_field, QStringLiteral("the log shows a failed start and no KV-cache size to compare (read all %1 lines): %2")
                                      .arg(r.linesRead).arg(r.failures.join(QLatin1Char(' '))));
    if (r.engine == Engine::Plain || (!r.kvBudget && !r.kvTokens && !r.numBlocks && !r.kvSelf && !r.requiredKv)) {
        throw InputError(m_field, QStringLiteral("no vLLM, SGLang, llama.cpp, Ollama or TensorRT-LLM KV-cache line found: read all %1 lines, stopped at "
                                                 "line %1 (%2 recognised). Paste the engine's start-up log, from the model "
                                                 "config to the KV cache size.")
                                      .arg(r.linesRead).arg(r.linesUsed));
    }
}
} // namespace

LogReading LogCalibration::read(const QString &text, const QString &field)
{
    StartupReader reader(field);
    return reader.read(text);
}

Scenario LogCalibration::applySettings(const LogReading &r, Scenario s)
{
    s.engine = r.engine;
    EngineSettings &e = s.engineSettings;
    // What the log sets is named by its line from here on.
    for (const Input input : {Input::Tp, Input::MaxModelLen, Input::MaxNumSeqs, Input::MaxNumBatchedTokens, Input::NSeq, Input::NCtx, Input::Model})
        for (const auto &[of, value] : figuresOf(r))
            if (of == input && value && (input != Input::Model || (r.layers && r.kvHeads && r.headDim))) // the shape only when the log gives it whole
                s.names.set(input, r.names.of(input));
    if (r.kvCells || (r.engine == Engine::LlamaCpp && r.maxModelLen)) // llama.cpp's cells stand for its --n-ctx
        s.names.set(Input::NCtx, r.names.of(r.kvCells ? Input::NCtx : Input::MaxModelLen));
    if (r.tp)
        s.tp = *r.tp;
    if (r.maxModelLen)
        s.maxModelLen = *r.maxModelLen;
    if (r.nSeq)
        e.nSeq = *r.nSeq;
    if (r.kvDtype && *r.kvDtype != QLatin1String("auto")) {
        try {
            s.kvDtype = Dtypes::parse(*r.kvDtype, QStringLiteral("kv_cache_dtype"));
        } catch (const InputError &) {
            // An engine-specific name Headroom does not size: keep the scenario's.
        }
    }
    if (r.utilization) {
        s.gpuMemoryUtilization = *r.utilization;
        s.gpuMemoryUtilizationGiven = true;
    }
    if (!r.version.isEmpty()) {
        const QStringList parts = r.version.split(QLatin1Char('.'));
        e.vllmMajor = parts.value(0).toInt();
        e.vllmMinor = parts.value(1).toInt();
    }
    Engines::rule(r.engine).applyLog(r, s);
    return s;
}

QVector<EngineSettingField> LogCalibration::printedSettings(const LogReading &r)
{
    QVector<EngineSettingField> out;
    const std::pair<Input, bool> printed[] = {
        {Input::GpuMemoryUtilization, bool(r.utilization)}, {Input::MemFractionStatic, bool(r.memFractionStatic)},
        {Input::MaxModelLen, r.maxModelLen && r.engine != Engine::LlamaCpp}, {Input::MaxNumSeqs, bool(r.maxNumSeqs)},
        {Input::MaxNumBatchedTokens, bool(r.maxNumBatchedTokens)}, {Input::TokensPerBlock, bool(r.tokensPerBlock)},
        {Input::NCtx, r.kvCells || r.ctxSize || (r.engine == Engine::LlamaCpp && r.maxModelLen)}, {Input::NSeq, bool(r.nSeq)},
        {Input::NBatch, r.nBatch && (r.engine == Engine::Ollama || r.engine == Engine::LlamaCpp)},
        {Input::FreeGpuMemoryFraction, r.freeGpuMemoryFraction && r.engine == Engine::Trtllm}};
    for (const auto &[input, given] : printed)
        if (given)
            out << EngineSettingField{input, false};
    if (!r.version.isEmpty() && r.engine == Engine::Vllm) // applySettings takes vLLM's release alone
        out << EngineSettingField{Input::MaxModelLen, true};
    return out;
}

Scenario LogCalibration::apply(const LogReading &r, Scenario base)
{
    Scenario s = applySettings(r, base);
    EngineSettings &e = s.engineSettings;
    for (const Input input : {Input::GpuMemory, Input::Weights, Input::NonTorch, Input::ActivationPeak, Input::CudaGraph, Input::KvCacheMemory,
                              Input::FreeMemoryBefore, Input::FreeMemoryAfter})
        for (const auto &[of, value] : figuresOf(r))
            if (of == input && value)
                s.names.set(input, r.names.of(input));
    if (r.totalMemory)
        s.gpuMemoryBytes = *r.totalMemory;
    if (r.weights)
        s.weightsBytes = Units::mul(*r.weights, s.tp, r.names.of(Input::Weights));
    // The printed budget is what the machine had: later what-ifs start from it.
    e.kvCacheMemory = r.kvBudget;
    e.activationPeak = r.activationPeak;
    e.nonTorch = r.nonTorch;
    e.cudaGraph = r.cudaGraph;
    e.freeMemoryBefore = r.freeBefore;
    e.freeMemoryAfter = r.freeAfter;
    Engines::rule(r.engine).applyMeasurements(r, s);
    return s;
}

bool LogCalibration::namesModel(const QString &printed, const QString &hfId)
{
    // The last path part, without the fine-tune suffixes that keep the base's config.json
    // (Llama-3.1-8B-Instruct's config differs from Llama-3.1-8B's in eos_token_id alone:
    // presets/models/llama-3.1-8b.json; the same holds for -chat, -it, -hf, -base, -pt).
    auto core = [](const QString &name) {
        QString n = name.trimmed().section(QLatin1Char('/'), -1).toLower();
        // Meta's repositories before their December 2024 rename: "Meta-Llama-3.1-8B" is "Llama-3.1-8B".
        if (n.startsWith(QLatin1String("meta-llama-")))
            n.remove(0, 5);
        static const QRegularExpression suffix(QStringLiteral("[-_.](?:instruct|chat|it|hf|base|pt)$"));
        for (QString before; before != n;) {
            before = n;
            n.remove(suffix);
        }
        return n;
    };
    const QString a = core(printed), b = core(hfId);
    return !a.isEmpty() && a == b;
}

QString CalibrationRow::format(double value) const
{
    if (!std::isfinite(value))
        return QStringLiteral("n/a");
    if ((unit == QLatin1String("tokens") || unit == QLatin1String("blocks")) && std::abs(value) < 9e18) // in qint64's range
        return Units::formatCount(qint64(std::llround(value))) + QLatin1Char(' ') + unit;
    if (unit == QLatin1String("x"))
        return QString::number(value, 'f', 2) + QLatin1Char('x');
    return QString::number(value, 'f', 2) + QLatin1Char(' ') + unit;
}

QString CalibrationRow::formatDifference(double difference)
{
    return std::isfinite(difference) ? QStringLiteral("%1%").arg(difference * 100, 0, 'f', 2) : QStringLiteral("n/a");
}

QJsonObject CalibrationRow::toJson() const
{
    const auto orNull = [](double v) { return std::isfinite(v) ? QJsonValue(v) : QJsonValue(); };
    return QJsonObject{{QStringLiteral("figure"), figure},           {QStringLiteral("printed"), printed},
                       {QStringLiteral("predicted"), predicted},     {QStringLiteral("from_measured"), orNull(measured)},
                       {QStringLiteral("unit"), unit},               {QStringLiteral("difference"), orNull(difference())}};
}

QVector<CalibrationRow> LogCalibration::compare(const LogReading &r, const Scenario &base)
{
    QVector<CalibrationRow> rows;
    const Scenario calibrated = apply(r, base);
    if (calibrated.model.layers() == 0)
        throw InputError(QStringLiteral("--model"), r.engine == Engine::LlamaCpp
                                                        ? QStringLiteral("the log prints no model shape (n_layer, n_head_kv, n_embd_head_k): give --model ID|PATH to predict its figures")
                                                        : QStringLiteral("has no layers: give --model ID|PATH to predict the log's figures"));
    // The prediction: the scenario with the log's settings (engine, version, TP, lengths, cache
    // type, utilization) and none of its measured figures, as Headroom predicts before the
    // hardware exists. A measured figure put in first made every row agree with itself (0.00%).
    Scenario before = applySettings(r, base);
    // A model without a parameter count (a custom shape) has no weights to predict: the log's
    // measured weights stand in (said among the warnings), the rest is still predicted.
    if (r.weights && before.model.totalParams <= 0 && !before.weightsBytes) {
        before.weightsBytes = Units::mul(*r.weights, before.tp, r.names.of(Input::Weights));
        before.names.set(Input::Weights, r.names.of(Input::Weights));
    }
    const CapacityResult predicted = computeCapacity(before);
    if (!predicted.ok)
        throw predicted.refusal();
    // Beside it, the figures from the log's measured terms: the budget from the measured
    // weights and workspace, the counts from the printed budget (or, for SGLang, the measured
    // free memory), which check the per-token rule alone.
    Scenario unpinned = calibrated;
    unpinned.engineSettings.kvCacheMemory.reset();
    const CapacityResult fromTerms = computeCapacity(unpinned);
    if (!fromTerms.ok)
        throw fromTerms.refusal();
    Scenario pinned = calibrated;
    if (r.kvBudget)
        pinned.engineSettings.kvCacheMemory = *r.kvBudget;
    const CapacityResult counted = computeCapacity(pinned);
    if (!counted.ok)
        throw counted.refusal();
    const double gib = double(Units::GiB), mib = double(Units::MiB);
    const EngineFigures &p = predicted.engineFigures, &f = counted.engineFigures;
    if (r.kvBudget)
        rows << CalibrationRow{QStringLiteral("KV cache memory per GPU"), double(*r.kvBudget) / gib, double(predicted.kvBudgetBytesPerGpu) / gib,
                               QStringLiteral("GiB"),
                               r.totalMemory || r.freeAfter ? double(fromTerms.kvBudgetBytesPerGpu) / gib : std::numeric_limits<double>::quiet_NaN()};
    if (r.kvTokens)
        rows << CalibrationRow{Engines::rule(r.engine).tokensFigure(), double(*r.kvTokens), double(p.kvCacheTokens), QStringLiteral("tokens"),
                               double(f.kvCacheTokens)};
    if (r.numBlocks)
        rows << CalibrationRow{QStringLiteral("GPU blocks"), double(*r.numBlocks), double(p.numBlocks), QStringLiteral("blocks"), double(f.numBlocks)};
    if (r.maxConcurrency)
        rows << CalibrationRow{QStringLiteral("Maximum concurrency"), *r.maxConcurrency, p.maxConcurrency, QStringLiteral("x"), f.maxConcurrency};
    if (r.kvNeeded)
        rows << CalibrationRow{QStringLiteral("KV cache needed for one max_model_len request"), double(*r.kvNeeded) / gib,
                               double(p.kvNeededBytes) / gib, QStringLiteral("GiB"), double(f.kvNeededBytes) / gib};
    if (r.estimatedMaxLen)
        rows << CalibrationRow{QStringLiteral("Estimated maximum model length"), double(*r.estimatedMaxLen), double(p.estimatedMaxModelLen),
                               QStringLiteral("tokens"), double(f.estimatedMaxModelLen)};
    if (r.requiredKv)
        rows << CalibrationRow{QStringLiteral("memory.required.kv"), double(*r.requiredKv) / mib, double(p.kvSelfBytes) / mib, QStringLiteral("MiB"),
                               double(f.kvSelfBytes) / mib};
    if (r.kvSelf)
        rows << CalibrationRow{QStringLiteral("KV self size"), double(*r.kvSelf) / mib, double(p.kvSelfBytes) / mib, QStringLiteral("MiB"),
                               double(f.kvSelfBytes) / mib};
    if (r.recurrentState)
        rows << CalibrationRow{QStringLiteral("Recurrent state (R + S)"), double(*r.recurrentState) / mib, double(p.recurrentStateBytes) / mib,
                               QStringLiteral("MiB"), double(f.recurrentStateBytes) / mib};
    return rows;
}

QStringList LogCalibration::warnings(const LogReading &r, const Scenario &calibrated, const QVector<CalibrationRow> &rows)
{
    // What the log shows of a failed start comes first: it says what the figures below mean.
    QStringList out = r.failures + r.notes;
    if (!r.model.isEmpty() && r.engine != Engine::LlamaCpp && !namesModel(r.model, calibrated.model.hfId)
        && !namesModel(r.model, calibrated.model.name))
        out << QStringLiteral("The log is for %1 but the figures below are predicted for %2: give --model with %1's preset id or "
                              "config.json path (in the window: choose it, or import its config.json) to compare that model.")
                   .arg(r.model, calibrated.model.name);
    if (r.weights && calibrated.model.totalParams <= 0)
        out << QStringLiteral("The model has no parameter count: the prediction takes the log's measured weights (%1 per GPU); give --params "
                              "to predict them too.")
                   .arg(Units::formatIn(*r.weights, Units::GiB, QStringLiteral("GiB"), 2));
    if (!r.tp && calibrated.tp > 1)
        out << QStringLiteral("The log prints no tensor parallelism: TP %1 kept from the scenario.").arg(calibrated.tp);
    if (r.kvCaches > 1)
        out << QStringLiteral("The log shows %1 KV caches in one context (an iSWA model: full-attention and sliding-window layers, each with "
                              "its own cells); the KV self size is their sum, and a model whose layers all keep every cell predicts more.")
                   .arg(r.kvCaches);
    // The card the figures are predicted for is the scenario's; a log from another card (its total as the
    // engine saw it, against the preset's: GpuSpec::engineVisibleBytes) compares unlike with unlike.
    if (const qint64 card = calibrated.gpu.engineVisibleBytes(); r.totalMemory && card > 0
        && std::abs(double(*r.totalMemory - card)) > 0.03 * double(card))
        out << QStringLiteral("The log's card has %1 in all, but the figures below are predicted for %2 (%3): choose the log's card "
                              "(--gpu; in the window, the GPU picker) to compare like with like.")
                   .arg(Units::formatIn(*r.totalMemory, Units::GiB, QStringLiteral("GiB"), 2), calibrated.gpu.name,
                        Units::formatIn(card, Units::GiB, QStringLiteral("GiB"), 2));
    if (!r.totalMemory && !r.freeBefore && r.engine != Engine::LlamaCpp && r.engine != Engine::Ollama)
        out << QStringLiteral("The log prints no card memory: %1 kept from the scenario.").arg(calibrated.gpu.name);
    for (const CalibrationRow &row : rows) {
        const double measured = row.measuredDifference();
        if (std::isfinite(measured) && std::abs(measured) > 0.05)
            out << QStringLiteral("%1 from the log's own measured terms differs by %2%: the scenario does not match the machine the log came from.")
                       .arg(row.figure).arg(measured * 100, 0, 'f', 1);
        else if (std::isfinite(row.difference()) && std::abs(row.difference()) > 0.05)
            out << QStringLiteral("%1 predicted before hardware differs by %2%: plan from the calibrated scenario (the log's measured terms) "
                                  "rather than the estimate.")
                       .arg(row.figure).arg(row.difference() * 100, 0, 'f', 1);
    }
    // SGLang's reserve, as the log measured it: what the pool left free ("Memory pool end") is what
    // activations and CUDA graphs run in; its rule sets it to (1 - mem_fraction_static) of the
    // free memory at launch, less the request-to-token map allocated beside the pool.
    if (r.engine == Engine::Sglang && r.freeAfterPool) {
        QString reserve = QStringLiteral("SGLang left %1 per GPU free after the KV pool (\"Memory pool end\"): its reserve for activations and "
                                         "CUDA graphs").arg(Units::formatIn(*r.freeAfterPool, Units::GiB, QStringLiteral("GiB"), 2));
        if (r.freeBefore && calibrated.engineSettings.memFractionStatic)
            reserve += QStringLiteral(", of the %1 that 1 − mem_fraction_static %2 keeps of the %3 free at launch (the rest holds the request-to-token map)")
                           .arg(Units::formatIn(qint64(double(*r.freeBefore) * (1.0 - *calibrated.engineSettings.memFractionStatic)), Units::GiB, QStringLiteral("GiB"), 2))
                           .arg(*calibrated.engineSettings.memFractionStatic)
                           .arg(Units::formatIn(*r.freeBefore, Units::GiB, QStringLiteral("GiB"), 2));
        if (r.graphMemory)
            reserve += QStringLiteral("; CUDA graphs then took %1 of it").arg(Units::formatIn(*r.graphMemory, Units::GiB, QStringLiteral("GiB"), 2));
        out << reserve + QLatin1Char('.');
    }
    if (rows.isEmpty())
        out << QStringLiteral("The log prints no figure Headroom can compare (a KV size, token count or block count).");
    if (const QString pools = sidePoolNote(r, calibrated); !pools.isEmpty())
        out << pools;
    return out;
}

QString LogCalibration::sidePoolNote(const LogReading &r, const Scenario &calibrated)
{
    if (!calibrated.speculative.on() && !calibrated.lora.on())
        return {};
    // The budget as compare() predicts it from the measured terms, with the pools and without.
    Scenario with = calibrated;
    with.engineSettings.kvCacheMemory.reset();
    Scenario without = with;
    without.speculative = SpeculativeDecoding{};
    without.lora = LoraSlots{};
    const CapacityResult a = computeCapacity(with), b = computeCapacity(without);
    if (!a.ok || !b.ok)
        return {};
    auto both = [](qint64 bytes) { return QStringLiteral("%1 (%2)").arg(Units::formatBytes(bytes, UnitSystem::Binary, 2), Units::formatExactBytes(bytes)); };
    QStringList taken, counted;
    if (a.draftWeightsBytesPerGpu > 0)
        taken << QStringLiteral("draft weights %1").arg(both(a.draftWeightsBytesPerGpu));
    if (a.loraBytesPerGpu > 0)
        taken << QStringLiteral("LoRA slots %1").arg(both(a.loraBytesPerGpu));
    if (a.draftKvBytesPerTokenPerGpu > 0)
        counted << QStringLiteral("the draft's KV, %1 per token").arg(Units::formatExactBytes(a.draftKvBytesPerTokenPerGpu));
    if (a.lookaheadTokens > 0)
        counted << QStringLiteral("%1 per session").arg(Units::plural(a.lookaheadTokens, QStringLiteral("lookahead slot"), QStringLiteral("lookahead slots")));
    QString note = QStringLiteral("Side pools from the flags, per GPU: ");
    if (r.kvBudget && (r.totalMemory || r.freeAfter) && !taken.isEmpty())
        note += QStringLiteral("%1 taken off the log's measured terms, so the predicted KV cache memory is %2 below what they give alone")
                    .arg(taken.join(QStringLiteral(", ")), both(b.kvBudgetBytesPerGpu - a.kvBudgetBytesPerGpu));
    else if (!taken.isEmpty())
        note += QStringLiteral("%1 (the log prints no budget to take them from)").arg(taken.join(QStringLiteral(", ")));
    if (!counted.isEmpty())
        note += (taken.isEmpty() ? QString() : QStringLiteral("; ")) + counted.join(QStringLiteral(" and ")) + QStringLiteral(" in the counts");
    // vLLM's gpu_model_runner.load_model loads the target, wraps it for LoRA and loads the
    // drafter under one memory profiler, and prints that as "Model loading took".
    note += QStringLiteral(". The log's figures already hold whatever pools its own run loaded (vLLM counts a draft's weights and "
                           "LoRA slots in \"Model loading took\"): these flags fit a log measured without them, as a what-if; "
                           "for a log measured with them, leave them out or they are counted twice.");
    return note;
}

QJsonObject LogCalibration::toJson(const LogReading &r, const QVector<CalibrationRow> &rows)
{
    QJsonObject o;
    o.insert(QStringLiteral("kind"), QStringLiteral("startup_log"));
    o.insert(QStringLiteral("engine"), Engines::name(r.engine));
    o.insert(QStringLiteral("model"), r.model);
    o.insert(QStringLiteral("version"), r.version);
    o.insert(QStringLiteral("lines_read"), r.linesRead);
    o.insert(QStringLiteral("lines_used"), r.linesUsed);
    QJsonArray a;
    for (const CalibrationRow &row : rows)
        a.append(row.toJson());
    o.insert(QStringLiteral("comparison"), a);
    o.insert(QStringLiteral("failures"), QJsonArray::fromStringList(r.failures));
    o.insert(QStringLiteral("notes"), QJsonArray::fromStringList(r.notes));
    return o;
}

} // namespace Headroom
