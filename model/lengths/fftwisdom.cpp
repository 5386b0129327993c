// SPDX-License-Identifier: GPL-3.0-or-later
#include "lengths/fftwisdom.h"

#include <QFile>
#include <fftw3.h>

namespace Headroom {

QByteArray builtInFftwWisdom()
{
    QFile f(QStringLiteral(":/fftw/fftw-wisdom.txt"));
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

bool importBuiltInFftwWisdom()
{
    const QByteArray wisdom = builtInFftwWisdom();
    return !wisdom.isEmpty() && fftw_import_wisdom_from_string(wisdom.constData()) != 0;
}

} // namespace Headroom
