// SPDX-License-Identifier: GPL-3.0-or-later
#include "io/logcalibration.h"
#include "plan/capacity.h"
#include "core/inputerror.h"
#include "core/units.h"
#include "inputs/inputranges.h"

#include <QHash>
#include <QJsonArray>
#include <functional>
#include <QRegularExpression>
#include <cmath>

namespace Headroom {

namespace {

// A memory figure as printed: number + unit (GiB, MiB; SGLang's "GB" is GiB).
qint64 bytesOf(const QString &number, const QString &unit, int line, const QString &field)
{
    bool ok = false;
    const double v = number.toDouble(&ok);
    if (!ok || !std::isfinite(v) || v < 0)
        throw InputError(field, QStringLiteral("line %1: \"%2\" is not a memory figure").arg(line).arg(number));
    const QString u = unit.toLower();
    const double scale = u.startsWith(QLatin1Char('m')) ? double(Units::MiB) : u.startsWith(QLatin1Char('k')) ? double(Units::KiB) : double(Units::GiB);
    if (v * scale >= 9.2e18)
        throw InputError(field, QStringLiteral("line %1: %2 %3 is too large to be a memory figure").arg(line).arg(number, unit));
    return qint64(std::llround(v * scale));
}

qint64 countOf(QString number, int line, const QString &field)
{
    number.remove(QLatin1Char(','));
    bool ok = false;
    const qint64 v = number.toLongLong(&ok);
    if (!ok || v < 0)
        throw InputError(field, QStringLiteral("line %1: \"%2\" is not a count").arg(line).arg(number));
    return v;
}

// A shape figure (layers, heads, head_dim, TP, n_ctx): a whole number from 1 to 10^8.
int shapeOf(const QString &number, int line, const QString &field, const char *name)
{
    const qint64 v = countOf(number, line, field);
    if (v < 1 || v > 100'000'000)
        throw InputError(field, QStringLiteral("line %1: %2 = %3 is not a usable value").arg(line).arg(QString::fromLatin1(name), number));
    return int(v);
}

} // namespace

LogReading LogCalibration::read(const QString &text, const QString &field)
{
    LogReading r;
    const QString num = QStringLiteral("([0-9]+(?:\\.[0-9]+)?)");
    // Each pattern compiled once per thread (compiling them all took longer than reading a log).
    auto rx = [](const QString &s) {
        thread_local QHash<QString, QRegularExpression> compiled;
        auto it = compiled.find(s);
        if (it == compiled.end())
            it = compiled.insert(s, QRegularExpression(s, QRegularExpression::CaseInsensitiveOption));
        return *it;
    };
    auto mem = [&field](const QRegularExpressionMatch &m, int cap, int line) { return bytesOf(m.captured(cap), m.captured(cap + 1), line, field); };
    auto cnt = [&field](const QRegularExpressionMatch &m, int cap, int line) { return countOf(m.captured(cap), line, field); };
    auto dbl = [&field](const QRegularExpressionMatch &m, int cap, int line) {
        bool ok = false;
        const double v = m.captured(cap).toDouble(&ok);
        if (!ok || !std::isfinite(v))
            throw InputError(field, QStringLiteral("line %1: \"%2\" is not a number").arg(line).arg(m.captured(cap)));
        return v;
    };
    // A setting the log prints, by the same range rule as its flag and file field.
    auto setting = [&](RealInput input, const QRegularExpressionMatch &m, int cap, int line) {
        const double v = dbl(m, cap, line);
        try {
            return InputRanges::check(input, v, QString::fromLatin1(InputRanges::of(input).key));
        } catch (const InputError &e) {
            throw InputError(field, QStringLiteral("line %1: %2 %3").arg(line).arg(e.field(), e.message()));
        }
    };
    const QString gib = QStringLiteral("\\s*(GiB|GB|MiB|MB)");
    struct P { QRegularExpression re; std::function<void(const QRegularExpressionMatch &, int)> take; };
    const QVector<P> patterns = {
        // vLLM
        {rx(QStringLiteral("(?:vLLM|LLM engine).*?\\(v(\\d+\\.\\d+(?:\\.\\d+)?)")), [&](const QRegularExpressionMatch &m, int) { r.engine = Engine::Vllm; r.version = m.captured(1); }},
        {rx(QStringLiteral("\\bvllm[ =]v?(\\d+\\.\\d+(?:\\.\\d+)?)\\b")), [&](const QRegularExpressionMatch &m, int) { r.engine = Engine::Vllm; r.version = m.captured(1); }},
        {rx(QStringLiteral("\\bmodel='([^']+)'")), [&](const QRegularExpressionMatch &m, int) { r.model = m.captured(1); }},
        {rx(QStringLiteral("max_seq_len=(\\d+)")), [&](const QRegularExpressionMatch &m, int l) { r.maxModelLen = shapeOf(m.captured(1), l, field, "max_seq_len"); }},
        {rx(QStringLiteral("tensor_parallel_size=(\\d+)")), [&](const QRegularExpressionMatch &m, int l) { r.tp = shapeOf(m.captured(1), l, field, "tensor_parallel_size"); }},
        {rx(QStringLiteral("kv_cache_dtype=([a-z0-9_]+)")), [&](const QRegularExpressionMatch &m, int) { r.kvDtype = m.captured(1); }},
        {rx(QStringLiteral("total_gpu_memory \\(") + num + gib + QStringLiteral("\\) x gpu_memory_utilization \\(") + num + QStringLiteral("\\)")),
         [&](const QRegularExpressionMatch &m, int l) { r.engine = Engine::Vllm; r.totalMemory = mem(m, 1, l); r.utilization = setting(RealInput::GpuMemoryUtilization, m, 3, l); }},
        {rx(QStringLiteral("model weights take ") + num + gib), [&](const QRegularExpressionMatch &m, int l) { r.weights = mem(m, 1, l); }},
        {rx(QStringLiteral("Model loading took ") + num + gib), [&](const QRegularExpressionMatch &m, int l) { if (!r.weights) r.weights = mem(m, 1, l); }},
        {rx(QStringLiteral("non_torch_memory takes ") + num + gib), [&](const QRegularExpressionMatch &m, int l) { r.nonTorch = mem(m, 1, l); }},
        {rx(QStringLiteral("activation peak memory takes ") + num + gib), [&](const QRegularExpressionMatch &m, int l) { r.activationPeak = mem(m, 1, l); }},
        {rx(QStringLiteral("(?:CUDA graph|Graph capturing).*?took ") + num + gib), [&](const QRegularExpressionMatch &m, int l) { r.cudaGraph = mem(m, 1, l); }},
        {rx(QStringLiteral("reserved for KV Cache is ") + num + gib), [&](const QRegularExpressionMatch &m, int l) { r.engine = Engine::Vllm; r.kvBudget = mem(m, 1, l); }},
        {rx(QStringLiteral("Available KV cache memory: ") + num + gib), [&](const QRegularExpressionMatch &m, int l) { r.engine = Engine::Vllm; r.kvBudget = mem(m, 1, l); }},
        {rx(QStringLiteral("# GPU blocks: ([0-9,]+)")), [&](const QRegularExpressionMatch &m, int l) { r.engine = Engine::Vllm; r.numBlocks = cnt(m, 1, l); }},
        {rx(QStringLiteral("num_gpu_blocks(?: is|=|:)\\s*([0-9,]+)")), [&](const QRegularExpressionMatch &m, int l) { r.numBlocks = cnt(m, 1, l); }},
        {rx(QStringLiteral("GPU KV cache size: ([0-9,]+) tokens")), [&](const QRegularExpressionMatch &m, int l) { r.engine = Engine::Vllm; r.kvTokens = cnt(m, 1, l); }},
        {rx(QStringLiteral("Maximum concurrency for ([0-9,]+) tokens per request: ") + num + QStringLiteral("x")),
         [&](const QRegularExpressionMatch &m, int l) { r.maxModelLen = cnt(m, 1, l); r.maxConcurrency = dbl(m, 2, l); }},
        // SGLang
        {rx(QStringLiteral("model_path='([^']+)'")), [&](const QRegularExpressionMatch &m, int) { r.engine = Engine::Sglang; r.model = m.captured(1); }},
        {rx(QStringLiteral("mem_fraction_static=") + num), [&](const QRegularExpressionMatch &m, int l) { r.memFractionStatic = setting(RealInput::MemFractionStatic, m, 1, l); }},
        {rx(QStringLiteral("\\btp_size=(\\d+)")), [&](const QRegularExpressionMatch &m, int l) { r.tp = shapeOf(m.captured(1), l, field, "tp_size"); }},
        {rx(QStringLiteral("context_length=(\\d+)")), [&](const QRegularExpressionMatch &m, int l) { r.maxModelLen = shapeOf(m.captured(1), l, field, "context_length"); }},
        {rx(QStringLiteral("Load weight begin.*avail mem=") + num + gib), [&](const QRegularExpressionMatch &m, int l) { r.engine = Engine::Sglang; r.freeBefore = mem(m, 1, l); }},
        {rx(QStringLiteral("Load weight end.*avail mem=") + num + gib + QStringLiteral(".*mem usage=") + num + gib),
         [&](const QRegularExpressionMatch &m, int l) { r.engine = Engine::Sglang; r.freeAfter = mem(m, 1, l); r.weights = mem(m, 3, l); }},
        {rx(QStringLiteral("KV Cache is allocated\\. #tokens: ([0-9,]+)")), [&](const QRegularExpressionMatch &m, int l) { r.engine = Engine::Sglang; r.kvTokens = cnt(m, 1, l); }},
        // llama.cpp
        {rx(QStringLiteral("general\\.name\\s+(?:str\\s+)?=\\s+(.+)$")), [&](const QRegularExpressionMatch &m, int) { if (r.model.isEmpty()) r.model = m.captured(1).trimmed(); }},
        {rx(QStringLiteral("\\bn_layer\\s+=\\s+(\\d+)")), [&](const QRegularExpressionMatch &m, int l) { r.engine = Engine::LlamaCpp; r.layers = shapeOf(m.captured(1), l, field, "n_layer"); }},
        {rx(QStringLiteral("\\bn_head\\s+=\\s+(\\d+)")), [&](const QRegularExpressionMatch &m, int l) { r.heads = shapeOf(m.captured(1), l, field, "n_head"); }},
        {rx(QStringLiteral("\\bn_head_kv\\s+=\\s+(\\d+)")), [&](const QRegularExpressionMatch &m, int l) { r.kvHeads = shapeOf(m.captured(1), l, field, "n_head_kv"); }},
        {rx(QStringLiteral("\\bn_embd_head_k\\s+=\\s+(\\d+)")), [&](const QRegularExpressionMatch &m, int l) { r.headDim = shapeOf(m.captured(1), l, field, "n_embd_head_k"); }},
        {rx(QStringLiteral("\\bn_ctx\\s+=\\s+(\\d+)")), [&](const QRegularExpressionMatch &m, int l) { r.engine = Engine::LlamaCpp; r.maxModelLen = shapeOf(m.captured(1), l, field, "n_ctx"); }},
        {rx(QStringLiteral("\\bn_seq_max\\s+=\\s+(\\d+)")), [&](const QRegularExpressionMatch &m, int l) { r.nSeq = shapeOf(m.captured(1), l, field, "n_seq_max"); }},
        {rx(QStringLiteral("KV self size\\s*=\\s*") + num + gib), [&](const QRegularExpressionMatch &m, int l) { r.engine = Engine::LlamaCpp; r.kvSelf = mem(m, 1, l); }},
        {rx(QStringLiteral("llama_kv_cache(?:_unified)?:.*size\\s*=\\s*") + num + gib + QStringLiteral(".*cells")),
         [&](const QRegularExpressionMatch &m, int l) { r.engine = Engine::LlamaCpp; r.kvSelf = mem(m, 1, l); }},
        {rx(QStringLiteral("\\bK \\(([a-z0-9_]+)\\):")), [&](const QRegularExpressionMatch &m, int) { r.kvDtype = m.captured(1); }},
        {rx(QStringLiteral("R \\(f32\\):\\s*") + num + gib + QStringLiteral(",\\s*S \\(f32\\):\\s*") + num + gib),
         [&](const QRegularExpressionMatch &m, int l) { r.recurrentState = Units::add(mem(m, 1, l), mem(m, 3, l), field); }},
    };
    QStringList lines = text.split(QLatin1Char('\n'));
    if (!lines.isEmpty() && lines.last().trimmed().isEmpty())
        lines.removeLast();
    r.linesRead = int(lines.size());
    for (int i = 0; i < lines.size(); ++i) {
        bool used = false;
        const Engine before = r.engine;
        for (const P &p : patterns) {
            const auto m = p.re.match(lines.at(i));
            if (m.hasMatch()) {
                p.take(m, i + 1);
                used = true;
            }
        }
        if (before != Engine::Plain && r.engine != before)
            throw InputError(field, QStringLiteral("line %1: a %2 line in a %3 log: paste one engine's start-up at a time")
                                        .arg(i + 1).arg(Engines::name(r.engine), Engines::name(before)));
        r.linesUsed += used;
    }
    if (r.engine == Engine::Plain || (!r.kvBudget && !r.kvTokens && !r.numBlocks && !r.kvSelf)) {
        throw InputError(field, QStringLiteral("no vLLM, SGLang or llama.cpp KV-cache line found: read all %1 lines, stopped at "
                                               "line %1 (%2 recognised). Paste the engine's start-up log, from the model "
                                               "config to the KV cache size.")
                                    .arg(r.linesRead).arg(r.linesUsed));
    }
    return r;
}

Scenario LogCalibration::apply(const LogReading &r, Scenario s)
{
    s.engine = r.engine;
    EngineSettings &e = s.engineSettings;
    if (r.tp)
        s.tp = *r.tp;
    if (r.maxModelLen) {
        s.maxModelLen = *r.maxModelLen;
        if (r.engine == Engine::LlamaCpp)
            e.nCtx = *r.maxModelLen;
    }
    if (r.nSeq)
        e.nSeq = *r.nSeq;
    if (r.kvDtype && *r.kvDtype != QLatin1String("auto")) {
        try {
            s.kvDtype = Dtypes::parse(*r.kvDtype, QStringLiteral("kv_cache_dtype"));
        } catch (const InputError &) {
            // An engine-specific name Headroom does not size: keep the scenario's.
        }
    }
    if (r.engine == Engine::LlamaCpp && r.layers && r.kvHeads && r.headDim) {
        ModelShape m;
        m.id = QStringLiteral("from-log");
        m.name = r.model.isEmpty() ? QStringLiteral("Model from log") : r.model;
        m.attentionHeads = r.heads.value_or(*r.kvHeads);
        m.kvHeads = *r.kvHeads;
        m.headDim = *r.headDim;
        m.totalParams = s.model.totalParams;
        LayerGroup g;
        g.kvHeads = *r.kvHeads;
        g.headDimK = g.headDimV = *r.headDim;
        m.addLayers(g, *r.layers);
        s.model = m;
        if (!s.kvDtype)
            s.kvDtype = Dtype::FP16;
    }
    if (r.totalMemory)
        s.gpuMemoryBytes = *r.totalMemory;
    if (r.utilization) {
        s.gpuMemoryUtilization = *r.utilization;
        s.gpuMemoryUtilizationGiven = true;
    }
    if (r.weights)
        s.weightsBytes = Units::mul(*r.weights, s.tp, QStringLiteral("weights"));
    // The printed budget is what the machine had: later what-ifs start from it.
    e.kvCacheMemory = r.kvBudget;
    e.activationPeak = r.activationPeak;
    e.nonTorch = r.nonTorch;
    e.cudaGraph = r.cudaGraph;
    e.freeMemoryBefore = r.freeBefore;
    e.freeMemoryAfter = r.freeAfter;
    if (r.memFractionStatic)
        e.memFractionStatic = r.memFractionStatic;
    if (!r.version.isEmpty()) {
        const QStringList parts = r.version.split(QLatin1Char('.'));
        e.vllmMajor = parts.value(0).toInt();
        e.vllmMinor = parts.value(1).toInt();
    } else if (r.engine == Engine::Vllm && r.activationPeak && !r.cudaGraph) {
        // A breakdown line without a CUDA-graph term comes from a version that did not subtract it.
        e.vllmMajor = 0;
        e.vllmMinor = 10;
    }
    // Keep the measured workspace as the scenario's own (vLLM: the profiled terms).
    if (r.engine == Engine::Vllm && r.activationPeak && r.nonTorch) {
        const bool graphs = e.vllmMajor > 0 || e.vllmMinor >= 11;
        s.workspaceBytes = *r.activationPeak + *r.nonTorch + (graphs ? r.cudaGraph.value_or(0) : 0);
    }
    return s;
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

namespace {
// A failed plan as the InputError it came from (field and message apart).
InputError failed(const CapacityResult &r)
{
    const QString prefix = r.errorField + QStringLiteral(": ");
    return InputError(r.errorField, !r.errorField.isEmpty() && r.error.startsWith(prefix) ? r.error.mid(prefix.size()) : r.error);
}
} // namespace

QVector<CalibrationRow> LogCalibration::compare(const LogReading &r, const Scenario &calibrated)
{
    QVector<CalibrationRow> rows;
    // The budget is predicted from the measured terms, without the printed figure itself.
    Scenario unpinned = calibrated;
    unpinned.engineSettings.kvCacheMemory.reset();
    const CapacityResult predicted = computeCapacity(unpinned);
    if (!predicted.ok)
        throw failed(predicted);
    const double gib = double(Units::GiB), mib = double(Units::MiB);
    if (r.kvBudget && (r.totalMemory || r.freeAfter))
        rows << CalibrationRow{QStringLiteral("KV cache memory per GPU (from the measured terms)"), double(*r.kvBudget) / gib,
                               double(predicted.kvBudgetBytesPerGpu) / gib, QStringLiteral("GiB")};
    // Counts from the printed budget (or, for SGLang, the measured free memory).
    Scenario pinned = calibrated;
    if (r.kvBudget)
        pinned.engineSettings.kvCacheMemory = *r.kvBudget;
    const CapacityResult counted = computeCapacity(pinned);
    if (!counted.ok)
        throw failed(counted);
    const EngineFigures &f = counted.engineFigures;
    if (r.kvTokens)
        rows << CalibrationRow{r.engine == Engine::Sglang ? QStringLiteral("#tokens") : QStringLiteral("GPU KV cache size"),
                               double(*r.kvTokens), double(f.kvCacheTokens), QStringLiteral("tokens")};
    if (r.numBlocks)
        rows << CalibrationRow{QStringLiteral("GPU blocks"), double(*r.numBlocks), double(f.numBlocks), QStringLiteral("blocks")};
    if (r.maxConcurrency)
        rows << CalibrationRow{QStringLiteral("Maximum concurrency"), *r.maxConcurrency, f.maxConcurrency, QStringLiteral("x")};
    if (r.kvSelf)
        rows << CalibrationRow{QStringLiteral("KV self size"), double(*r.kvSelf) / mib, double(f.kvSelfBytes) / mib, QStringLiteral("MiB")};
    if (r.recurrentState)
        rows << CalibrationRow{QStringLiteral("Recurrent state (R + S)"), double(*r.recurrentState) / mib,
                               double(f.recurrentStateBytes) / mib, QStringLiteral("MiB")};
    return rows;
}

QStringList LogCalibration::warnings(const LogReading &r, const Scenario &calibrated, const QVector<CalibrationRow> &rows)
{
    QStringList out;
    const QString printed = r.model.section(QLatin1Char('/'), -1).toLower();
    const QString used = calibrated.model.hfId.section(QLatin1Char('/'), -1).toLower();
    if (!printed.isEmpty() && r.engine != Engine::LlamaCpp && printed != used)
        out << QStringLiteral("The log is for %1 but the scenario's model is %2: choose that model (or import its config.json) first.")
                   .arg(r.model, calibrated.model.name);
    if (!r.tp && calibrated.tp > 1)
        out << QStringLiteral("The log prints no tensor parallelism: TP %1 kept from the scenario.").arg(calibrated.tp);
    if (!r.totalMemory && !r.freeBefore && r.engine != Engine::LlamaCpp)
        out << QStringLiteral("The log prints no card memory: %1 kept from the scenario.").arg(calibrated.gpu.name);
    for (const CalibrationRow &row : rows)
        if (std::isfinite(row.difference()) && std::abs(row.difference()) > 0.05)
            out << QStringLiteral("%1 differs by %2%: the scenario does not match the machine the log came from.")
                       .arg(row.figure).arg(row.difference() * 100, 0, 'f', 1);
    if (rows.isEmpty())
        out << QStringLiteral("The log prints no figure Headroom can compare (a KV size, token count or block count).");
    return out;
}

QJsonObject LogCalibration::toJson(const LogReading &r, const QVector<CalibrationRow> &rows)
{
    QJsonObject o;
    o.insert(QStringLiteral("engine"), Engines::name(r.engine));
    o.insert(QStringLiteral("model"), r.model);
    o.insert(QStringLiteral("version"), r.version);
    o.insert(QStringLiteral("lines_read"), r.linesRead);
    o.insert(QStringLiteral("lines_used"), r.linesUsed);
    QJsonArray a;
    for (const CalibrationRow &row : rows)
        a.append(QJsonObject{{QStringLiteral("figure"), row.figure},
                             {QStringLiteral("printed"), row.printed},
                             {QStringLiteral("predicted"), row.predicted},
                             {QStringLiteral("unit"), row.unit},
                             {QStringLiteral("difference"), std::isfinite(row.difference()) ? QJsonValue(row.difference()) : QJsonValue()}});
    o.insert(QStringLiteral("comparison"), a);
    return o;
}

} // namespace Headroom
