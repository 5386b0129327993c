// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/filekind.h"

#include "core/inputerror.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>
#include <QList>
#include <QRegularExpression>

#include <algorithm>

namespace Headroom::FileKind {

namespace {

constexpr qsizetype kHeadBytes = 64 * 1024;

// The kind of a JSON object: by its "format", else by keys only that kind has.
Kind ofObject(const QJsonObject &o)
{
    const QString format = o.value(QStringLiteral("format")).toString();
    if (format == QLatin1String("headroom-scenario"))
        return Kind::Scenario;
    if (format == QLatin1String("headroom-presets"))
        return Kind::PresetBundle;
    if (o.contains(QStringLiteral("inputs")) && o.contains(QStringLiteral("kv_bytes_per_token")))
        return Kind::PlanJson;
    if (o.contains(QStringLiteral("num_hidden_layers")) || o.contains(QStringLiteral("architectures")) || o.contains(QStringLiteral("model_type")))
        return Kind::Config;
    if (o.contains(QStringLiteral("input_length")) || o.contains(QStringLiteral("hash_ids")))
        return Kind::TraceJsonLines;
    return Kind::Unknown;
}

// The lines of `text` that hold anything, at most `most` of them.
QList<QByteArrayView> lines(QByteArrayView text, int most)
{
    QList<QByteArrayView> out;
    for (qsizetype from = 0; from < text.size() && out.size() < most;) {
        qsizetype end = from;
        while (end < text.size() && text[end] != '\n' && text[end] != '\r')
            ++end;
        const QByteArrayView line = text.sliced(from, end - from).trimmed();
        if (!line.isEmpty())
            out << line;
        from = end + 1;
    }
    return out;
}

Kind ofText(QByteArrayView text)
{
    const QByteArray lower = text.toByteArray().toLower();
    if (lower.contains("serving benchmark result") || (lower.contains("| model") && lower.contains("t/s |")))
        return Kind::Benchmark;
    // Words of the engines' start-up lines (tests/data/logs: every one there has one), which no
    // trace, config.json or benchmark result holds.
    for (const char *engine : {"vllm", "sglang", "llama_", "llm_load", "load_tensors", "tensorrt-llm", "ollama", "enginecore", "llm engine",
                               "kv cache", "kv buffer", "kv self size", "model weights took", "memory profiling", "max_total_num_tokens",
                               "server_args", "gpu blocks", "level=info", "out of memory", "not enough memory", "mem usage="})
        if (lower.contains(engine))
            return Kind::EngineLog;
    const QList<QByteArrayView> first = lines(text, 50);
    if (first.isEmpty())
        return Kind::Unknown;
    const QByteArray header = first.first().toByteArray().toLower();
    if (header.contains(',') && (header.contains("timestamp") || header.contains("contexttokens") || header.contains("request tokens")))
        return Kind::TraceCsv;
    static const QRegularExpression number(QStringLiteral("^[0-9][0-9,._']*$")), word(QStringLiteral("^[A-Za-z_ ]+$"));
    for (qsizetype i = 0; i < first.size(); ++i) {
        const QString line = QString::fromUtf8(first.at(i));
        if (!number.match(line).hasMatch() && !(i == 0 && first.size() > 1 && word.match(line).hasMatch()))
            return Kind::Unknown;
    }
    return Kind::TraceLengths;
}

// The flag or command that reads `kind`, and the window's menu item for it.
QString readWith(Kind kind, const QString &path)
{
    switch (kind) {
    case Kind::Scenario:
    case Kind::PlanJson: return QStringLiteral("--scenario %1 (in the window, File > Open scenario)").arg(path);
    case Kind::Config: return QStringLiteral("--model %1 (in the window, File > Import config.json)").arg(path);
    case Kind::PresetBundle: return QStringLiteral("`headroom presets import %1` (in the window, Tools > Presets, Import)").arg(path);
    case Kind::TraceCsv:
    case Kind::TraceJsonLines:
    case Kind::TraceLengths:
        return QStringLiteral("--distribution trace:%1, or `headroom replay --trace %1` (in the window, File > Import trace)").arg(path);
    case Kind::EngineLog:
    case Kind::Benchmark: return QStringLiteral("`headroom calibrate %1` (in the window, Tools > Calibrate from log or benchmark)").arg(path);
    case Kind::Pdf: return QStringLiteral("a PDF viewer: Headroom writes reports, it reads none");
    case Kind::Unknown: break;
    }
    return {};
}

} // namespace

Kind detect(QByteArrayView head)
{
    head = head.first(std::min<qsizetype>(head.size(), kHeadBytes));
    if (head.startsWith("\xEF\xBB\xBF"))
        head = head.sliced(3);
    if (head.startsWith("%PDF-"))
        return Kind::Pdf;
    const QByteArrayView text = head.trimmed();
    if (text.startsWith('{')) {
        QJsonParseError error{};
        const QJsonDocument whole = QJsonDocument::fromJson(text.toByteArray(), &error);
        if (error.error == QJsonParseError::NoError)
            return whole.isObject() ? ofObject(whole.object()) : Kind::Unknown;
        // JSON lines: the first line an object of a trace, the next one an object too.
        const QList<QByteArrayView> first = lines(text, 2);
        const QJsonDocument line = QJsonDocument::fromJson(first.first().toByteArray(), &error);
        if (error.error == QJsonParseError::NoError && line.isObject() && first.size() == 2 && first.last().startsWith('{'))
            return ofObject(line.object()) == Kind::TraceJsonLines ? Kind::TraceJsonLines : Kind::Unknown;
        return Kind::Unknown;
    }
    return ofText(text);
}

QString what(Kind kind)
{
    switch (kind) {
    case Kind::Scenario: return QStringLiteral("a Headroom scenario");
    case Kind::PlanJson: return QStringLiteral("a saved `plan --json`");
    case Kind::Config: return QStringLiteral("a model's config.json");
    case Kind::PresetBundle: return QStringLiteral("a preset bundle");
    case Kind::TraceCsv:
    case Kind::TraceJsonLines:
    case Kind::TraceLengths: return QStringLiteral("a trace (%1)").arg(traceFormat(kind));
    case Kind::EngineLog: return QStringLiteral("an engine's start-up log");
    case Kind::Benchmark: return QStringLiteral("a benchmark's result");
    case Kind::Pdf: return QStringLiteral("a PDF");
    case Kind::Unknown: break;
    }
    return QStringLiteral("a file of no kind Headroom reads");
}

QString traceFormat(Kind kind)
{
    switch (kind) {
    case Kind::TraceCsv: return QStringLiteral("CSV");
    case Kind::TraceJsonLines: return QStringLiteral("JSON lines");
    case Kind::TraceLengths: return QStringLiteral("one length per line");
    default: return {};
    }
}

void expect(const QString &path, QByteArrayView head, std::initializer_list<Kind> accepted, const QString &expected, const QString &field)
{
    const Kind kind = detect(head);
    if (kind == Kind::Unknown)
        return;
    for (const Kind k : accepted)
        if (k == kind)
            return;
    throw InputError(field, QStringLiteral("%1 is %2, not %3: use %4").arg(path, what(kind), expected, readWith(kind, path)));
}

} // namespace Headroom::FileKind
