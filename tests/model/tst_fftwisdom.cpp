// SPDX-License-Identifier: GPL-3.0-or-later
// The built-in FFTW wisdom (model/lengths/fftwisdom.h) changes only the cost of
// planning, never a transform: for every size OverflowRisk uses (out of place,
// FFTW_ESTIMATE: real-to-complex of 2^8 to 2^23 points, complex-to-real of 2^8 to 2^12
// for the truncated law's products), the plan FFTW makes with the wisdom
// is the one it makes without (FFTW's printed plan: the same solvers, codelets and
// splits), and both give the same transform of one input to the last bit. Without
// that, `plan` and `levers` would print other digits of the tails than before the
// wisdom (their plan --json figures carry all 17).
#include "lengths/fftwisdom.h"

#include "common/headroomtest.h"

#include <QRandomGenerator>
#include <QSysInfo>
#include <QTest>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <fftw3.h>
#include <memory>

using namespace Headroom;

namespace {

// FFTW's printed plan from make(), made without or with the built-in wisdom, and the plan run
// once (after ready(), which sets its input: a c2r plan overwrites it); empty when FFTW gave none.
QByteArray runPlan(bool useWisdom, const std::function<fftw_plan()> &make, const std::function<void()> &ready = {})
{
    fftw_forget_wisdom();
    if (useWisdom)
        importBuiltInFftwWisdom();
    const fftw_plan p = make();
    if (!p)
        return QByteArray();
    char *text = fftw_sprint_plan(p);
    const QByteArray printed(text);
    std::free(text);
    if (ready)
        ready();
    fftw_execute(p);
    fftw_destroy_plan(p);
    return printed;
}

} // namespace

class TestFftWisdom : public QObject
{
    Q_OBJECT

private slots:
    void wisdomIsTaken()
    {
        const QByteArray wisdom = builtInFftwWisdom();
        // `fftw-wisdom` writes the version it was made with first (FFTW's api/export-wisdom.c).
        QVERIFY2(wisdom.startsWith("(fftw-3.3.10 fftw_wisdom"), wisdom.left(40).constData());
        if (!QByteArray(fftw_version).startsWith("fftw-3.3.10") || QSysInfo::currentCpuArchitecture() != QLatin1String("x86_64"))
            QSKIP("the wisdom was made with Debian 12's FFTW 3.3.10 on x86-64; regenerate it for this FFTW (see fftwisdom.h)");
        fftw_forget_wisdom();
        QVERIFY2(importBuiltInFftwWisdom(), "FFTW refuses the built-in wisdom: regenerate it (see fftwisdom.h)");
        fftw_forget_wisdom();
    }

    void samePlansAndTransforms()
    {
        for (int k = 8; k <= 23; ++k) {
            const int n = 1 << k;
            const auto freeReal = [](double *p) { fftw_free(p); };
            const auto freeComplex = [](fftw_complex *p) { fftw_free(p); };
            const std::unique_ptr<double, decltype(freeReal)> in(fftw_alloc_real(size_t(n)), freeReal);
            const std::unique_ptr<fftw_complex, decltype(freeComplex)> without(fftw_alloc_complex(size_t(n / 2 + 1)), freeComplex);
            const std::unique_ptr<fftw_complex, decltype(freeComplex)> with(fftw_alloc_complex(size_t(n / 2 + 1)), freeComplex);
            QRandomGenerator random{quint32(k)};
            for (int i = 0; i < n; ++i)
                in.get()[i] = random.generateDouble();
            // ESTIMATE leaves `in` alone.
            const QByteArray planWithout = runPlan(false, [&] { return fftw_plan_dft_r2c_1d(n, in.get(), without.get(), FFTW_ESTIMATE); });
            const QByteArray planWith = runPlan(true, [&] { return fftw_plan_dft_r2c_1d(n, in.get(), with.get(), FFTW_ESTIMATE); });
            QVERIFY(!planWithout.isEmpty());
            QCOMPARE(planWith, planWithout);
            QVERIFY2(std::memcmp(with.get(), without.get(), sizeof(fftw_complex) * size_t(n / 2 + 1)) == 0, qPrintable(QString::number(n)));
            // And the wisdom holds this size: without it the two plans above are both FFTW's own
            // estimate, alike whatever the wisdom holds (FFTW_WISDOM_ONLY plans from wisdom alone,
            // else gives NULL).
            fftw_forget_wisdom();
            importBuiltInFftwWisdom();
            const fftw_plan fromWisdom = fftw_plan_dft_r2c_1d(n, in.get(), without.get(), FFTW_ESTIMATE | FFTW_WISDOM_ONLY);
            QVERIFY2(fromWisdom, qPrintable(QStringLiteral("no wisdom for the %1-point real-to-complex transform").arg(n)));
            fftw_destroy_plan(fromWisdom);
        }
        fftw_forget_wisdom();
    }

    void sameBackwardPlansAndTransforms()
    {
        for (int k = 8; k <= 12; ++k) {
            const int n = 1 << k;
            const auto freeReal = [](double *p) { fftw_free(p); };
            const auto freeComplex = [](fftw_complex *p) { fftw_free(p); };
            const std::unique_ptr<fftw_complex, decltype(freeComplex)> in(fftw_alloc_complex(size_t(n / 2 + 1)), freeComplex);
            const std::unique_ptr<fftw_complex, decltype(freeComplex)> copy(fftw_alloc_complex(size_t(n / 2 + 1)), freeComplex);
            const std::unique_ptr<double, decltype(freeReal)> without(fftw_alloc_real(size_t(n)), freeReal);
            const std::unique_ptr<double, decltype(freeReal)> with(fftw_alloc_real(size_t(n)), freeReal);
            QRandomGenerator random{quint32(100 + k)};
            for (int i = 0; i <= n / 2; ++i) {
                in.get()[i][0] = random.generateDouble();
                in.get()[i][1] = i == 0 || i == n / 2 ? 0.0 : random.generateDouble(); // Hermitian: real at 0 and n / 2
            }
            const auto ready = [&] { std::memcpy(copy.get(), in.get(), sizeof(fftw_complex) * size_t(n / 2 + 1)); };
            const QByteArray planWithout = runPlan(false, [&] { return fftw_plan_dft_c2r_1d(n, copy.get(), without.get(), FFTW_ESTIMATE); }, ready);
            const QByteArray planWith = runPlan(true, [&] { return fftw_plan_dft_c2r_1d(n, copy.get(), with.get(), FFTW_ESTIMATE); }, ready);
            QVERIFY(!planWithout.isEmpty());
            QCOMPARE(planWith, planWithout);
            QVERIFY2(std::memcmp(with.get(), without.get(), sizeof(double) * size_t(n)) == 0, qPrintable(QString::number(n)));
            // And the wisdom holds this size (FFTW_WISDOM_ONLY plans from wisdom alone, else gives NULL).
            fftw_forget_wisdom();
            importBuiltInFftwWisdom();
            const fftw_plan fromWisdom = fftw_plan_dft_c2r_1d(n, copy.get(), without.get(), FFTW_ESTIMATE | FFTW_WISDOM_ONLY);
            QVERIFY2(fromWisdom, qPrintable(QStringLiteral("no wisdom for the %1-point complex-to-real transform").arg(n)));
            fftw_destroy_plan(fromWisdom);
        }
        fftw_forget_wisdom();
    }
};

HEADROOM_TEST_MAIN(TestFftWisdom, QCoreApplication)
#include "tst_fftwisdom.moc"
