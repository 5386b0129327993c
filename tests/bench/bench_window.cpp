// SPDX-License-Identifier: GPL-3.0-or-later
// Benchmark (not a test): slider to repainted window. Drives the real MainWindow (offscreen
// platform, a throw-away preset store, 1600 x 1000) on the Azure conversation trace scenario
// through 200 steps of the context slider, one step at a time as a drag delivers them. Each step
// is timed from the slider's value change until the window has painted that value's answer: the
// step sets the slider, lets the event loop run until the tail estimate for this value has come
// back from the worker thread and been shown (Planner::busy() false), then delivers what the
// event loop would deliver next, at once: the layouts the new texts asked for, the chart scene's
// queued update, and the paint of every region they marked (QEvent::UpdateRequest; the offscreen
// backing store paints for real). A second pass does the same and then repaints the whole window
// (QWidget::repaint, every visible widget), which no drag does: the worst case, for comparison.
// Target (issue 15): p99 <= 16 ms per step. Prints the median, the 99th percentile and the
// maximum; under each, the GUI thread's own CPU time per step (what a busy machine's other
// processes cannot inflate; the tail estimate runs on a worker thread).
// Its settings go to a throw-away folder, as the tests' do (tests/common/headroomtest.h).
// Run: ./dev bench (or build/tests/bench_window; --steps also prints every step: pass, step,
// slider value, milliseconds and GUI thread CPU milliseconds, to find the slow values).
#include "inputpanel.h"
#include "mainwindow.h"
#include "distributionview.h"
#include "planner.h"

#include <QApplication>
#include <QSettings>
#include <QElapsedTimer>
#include <QSlider>
#include <QTemporaryDir>
#include <QTest> // qWait
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>

using namespace Headroom;

int main(int argc, char **argv)
{
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QTemporaryDir dir;
    // The window's settings (last scenario, layout) neither come from nor go to the user's.
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, dir.path());
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, dir.path());
    MainWindow w(dir.filePath(QStringLiteral("presets.sqlite")));
    w.resize(1600, 1000);
    w.show();
    QString error;
    if (!w.distributionView()->importTrace(QStringLiteral(HEADROOM_SAMPLES "/azure-llm-inference-2023-conv.csv"), &error)) {
        std::fprintf(stderr, "%s\n", qPrintable(error));
        return 1;
    }
    // The first tail estimate runs off the GUI thread: wait for it, as a user would.
    QElapsedTimer wait;
    wait.start();
    while (w.planner()->busy() && wait.elapsed() < 10000)
        QTest::qWait(10);
    const bool everyStep = QCoreApplication::arguments().contains(QStringLiteral("--steps"));
    QSlider *slider = w.inputPanel()->contextSlider();
    const auto threadCpuMs = [] {
        timespec t{};
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
        return double(t.tv_sec) * 1e3 + double(t.tv_nsec) / 1e6;
    };
    // Nearest rank: the 99th percentile of 200 steps is the 198th smallest.
    const auto row = [](const char *name, QVector<double> v) {
        std::sort(v.begin(), v.end());
        const auto at = [&v](double q) { return v.at(std::clamp(int(std::ceil(q * v.size())) - 1, 0, int(v.size()) - 1)); };
        std::printf("%-44s %8.2f %8.2f %8.2f   ms\n", name, at(0.5), at(0.99), v.last());
    };
    std::printf("%-44s %8s %8s %8s\n", "slider to painted (200 steps)", "median", "p99", "max");
    for (const bool wholeWindow : {false, true}) {
        QVector<double> ms, cpu;
        const int steps = 200;
        for (int i = 0; i < steps; ++i) {
            // Up and back across the middle of the scale, a step of 2 (of 1,000) at a time.
            const int value = 300 + (i < steps / 2 ? 2 * i : 2 * (steps - i));
            QElapsedTimer t;
            const double cpu0 = threadCpuMs();
            t.start();
            slider->setValue(value);
            // Until this value's answer is in: the worker's finished signal wakes the loop.
            do
                QCoreApplication::processEvents(w.planner()->busy() ? QEventLoop::WaitForMoreEvents : QEventLoop::AllEvents);
            while (w.planner()->busy());
            // Layout requests post further layout requests up the tree, a scene's queued update
            // marks the view, a marked region posts the update request: a few rounds deliver all.
            for (int round = 0; round < 4; ++round)
                QCoreApplication::sendPostedEvents();
            if (wholeWindow)
                w.repaint();
            ms.append(double(t.nsecsElapsed()) / 1e6);
            cpu.append(threadCpuMs() - cpu0);
            if (everyStep)
                std::printf("pass %d step %3d value %4d %8.2f ms %8.2f ms CPU\n", wholeWindow ? 2 : 1, i, value, ms.last(), cpu.last());
        }
        row(wholeWindow ? "context slider, whole window repainted" : "context slider, conversation trace", ms);
        row("  of which GUI thread CPU", cpu);
    }
    return 0;
}
