// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer entry point for one target of fuzztargets.cpp, chosen at build
// time (HEADROOM_FUZZ_TARGET). A failed check aborts, so libFuzzer keeps the
// input as a crash.
#include "fuzztargets.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QString problem = Headroom::FuzzTargets::run(QStringLiteral(HEADROOM_FUZZ_TARGET),
                                                       QByteArray(reinterpret_cast<const char *>(data), qsizetype(size)));
    if (!problem.isEmpty()) {
        std::fprintf(stderr, "headroom fuzz check failed: %s\n", problem.toLocal8Bit().constData());
        std::abort();
    }
    return 0;
}
