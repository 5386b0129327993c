// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// HEADROOM_TEST_MAIN(TestClass, AppClass): the main() of every Headroom test program.
// Like QTEST_MAIN, with one difference: Qt Test 6.4 marks a test function that throws as
// "Caught unhandled exception" and then rethrows, which aborts the program with a stack dump
// and no word of what was thrown. Here the rethrown exception is caught, its message (an
// InputError's field and sentence) is printed as a failure, and the program exits 1.
// AppClass: QCoreApplication for headless tests, QApplication for widget tests.
// Every test program keeps its QSettings (the window's last scenario, recent files, layout) in
// a folder of its own for the run: never the user's, nor what another run or another test
// program left in ~/.qttest (a window there reopened a scenario another run had saved).

#include "core/inputerror.h"

#include <QSettings>
#include <QTemporaryDir>
#include <QtTest>
#include <cstdio>
#include <exception>

#define HEADROOM_TEST_MAIN(TestObject, AppClass)                                                   \
    int main(int argc, char *argv[])                                                               \
    {                                                                                              \
        AppClass app(argc, argv);                                                                  \
        const QTemporaryDir settingsDir;                                                           \
        QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, settingsDir.path());      \
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, settingsDir.path());        \
        app.setAttribute(Qt::AA_Use96Dpi, true);                                                   \
        TestObject tc;                                                                             \
        QTEST_SET_MAIN_SOURCE_PATH                                                                 \
        try {                                                                                      \
            return QTest::qExec(&tc, argc, argv);                                                  \
        } catch (const Headroom::InputError &e) {                                                  \
            std::fprintf(stderr, "FAIL!  : unhandled Headroom::InputError: %s\n",                \
                         e.text().toLocal8Bit().constData());                                      \
        } catch (const std::exception &e) {                                                        \
            std::fprintf(stderr, "FAIL!  : unhandled exception: %s\n", e.what());                \
        } catch (...) {                                                                            \
            std::fprintf(stderr, "FAIL!  : unhandled exception of an unknown type\n");             \
        }                                                                                          \
        return 1;                                                                                  \
    }
