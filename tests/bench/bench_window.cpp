// SPDX-License-Identifier: GPL-3.0-or-later
// Benchmark (not a test): slider to repainted window. Drives the real MainWindow (offscreen
// platform, a throw-away preset store) on the Azure conversation trace scenario through 200
// steps of the context slider, one step at a time as a drag delivers them: each step sets the
// slider, lets the event loop deliver what it queued, and repaints the window synchronously
// (QWidget::repaint paints every visible widget, the memory chart included). The tail figures
// that arrive later from the worker thread are painted by the steps that follow, as in a drag.
// Target (issue 15): p99 <= 16 ms per step. Prints the median and the 99th percentile.
#include "inputpanel.h"
#include "mainwindow.h"
#include "distributionview.h"
#include "planner.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QSlider>
#include <QTemporaryDir>
#include <QTest> // qWait
#include <algorithm>
#include <cstdio>

using namespace Headroom;

int main(int argc, char **argv)
{
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QTemporaryDir dir;
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
    QSlider *slider = w.inputPanel()->contextSlider();
    QVector<double> ms;
    const int steps = 200;
    for (int i = 0; i < steps; ++i) {
        // Up and back across the middle of the scale, a step of 2 (of 1,000) at a time.
        const int value = 300 + (i < steps / 2 ? 2 * i : 2 * (steps - i));
        QElapsedTimer t;
        t.start();
        slider->setValue(value);
        QCoreApplication::processEvents();
        w.repaint();
        ms.append(double(t.nsecsElapsed()) / 1e6);
    }
    std::sort(ms.begin(), ms.end());
    const auto at = [&](double q) { return ms.at(std::min<int>(ms.size() - 1, int(q * ms.size()))); };
    std::printf("%-34s %8s %8s %8s\n", "slider to repaint (200 steps)", "median", "p99", "max");
    std::printf("%-34s %8.2f %8.2f %8.2f   ms\n", "context slider, conversation trace", at(0.5), at(0.99), ms.last());
    return 0;
}
