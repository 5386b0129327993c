// SPDX-License-Identifier: GPL-3.0-or-later
#include "engineprofile.h"
#include "inputerror.h"

namespace Headroom::Engines {

QString name(Engine e)
{
    switch (e) {
    case Engine::Plain: return QStringLiteral("plain");
    case Engine::Vllm: return QStringLiteral("vllm");
    }
    return {};
}

QStringList names()
{
    return {name(Engine::Plain), name(Engine::Vllm)};
}

Engine parse(const QString &text, const QString &field)
{
    const QString t = text.trimmed().toLower();
    if (t == QLatin1String("plain"))
        return Engine::Plain;
    if (t == QLatin1String("vllm"))
        return Engine::Vllm;
    throw InputError(field, QStringLiteral("unknown engine \"%1\"; use %2").arg(text, names().join(QStringLiteral(" or "))));
}

} // namespace Headroom::Engines
