// SPDX-License-Identifier: GPL-3.0-or-later
#include "io/sampletraces.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QMap>
#include <QStandardPaths>

namespace Headroom {

QVector<SampleTrace> sampleTraces()
{
    // Request counts as resources/traces/README.md states them.
    struct Known { const char *file; const char *title; };
    static const Known known[] = {
        {"azure-llm-inference-2023-conv.csv", QT_TRANSLATE_NOOP("SampleTraces", "Azure LLM inference 2023: conversation (19,366 requests)")},
        {"azure-llm-inference-2023-code.csv", QT_TRANSLATE_NOOP("SampleTraces", "Azure LLM inference 2023: code completion (8,819 requests)")},
        {"mooncake-fast25-conversation.jsonl", QT_TRANSLATE_NOOP("SampleTraces", "Mooncake FAST'25: one hour of chat (12,031 requests, prefix blocks)")},
    };

    QStringList folders;
    if (QCoreApplication::instance())
        folders << QDir::cleanPath(QCoreApplication::applicationDirPath() + QStringLiteral("/../share/headroom/traces"));
    folders << QStandardPaths::locateAll(QStandardPaths::GenericDataLocation, QStringLiteral("headroom/traces"), QStandardPaths::LocateDirectory);

    // The first folder that holds a file name wins for it.
    QMap<QString, QString> paths;
    for (const QString &folder : qAsConst(folders)) {
        const QDir dir(folder);
        for (const QString &name : dir.entryList({QStringLiteral("*.csv"), QStringLiteral("*.jsonl")}, QDir::Files | QDir::Readable, QDir::Name))
            if (!paths.contains(name))
                paths.insert(name, dir.absoluteFilePath(name));
    }
    QVector<SampleTrace> traces;
    for (const Known &k : known)
        if (const QString path = paths.take(QLatin1String(k.file)); !path.isEmpty())
            traces.append({QCoreApplication::translate("SampleTraces", k.title), path});
    for (auto it = paths.cbegin(); it != paths.cend(); ++it)
        traces.append({it.key(), it.value()});
    return traces;
}

QString describeSpec(const QString &spec)
{
    if (!spec.startsWith(QLatin1String("trace:")))
        return spec;
    const QFileInfo file(spec.mid(6));
    const QString canonical = file.canonicalFilePath();
    if (canonical.isEmpty())
        return spec;
    for (const SampleTrace &t : sampleTraces())
        if (QFileInfo(t.path).canonicalFilePath() == canonical)
            return QCoreApplication::translate("SampleTraces", "the sample trace %1").arg(file.fileName());
    return spec;
}

} // namespace Headroom
