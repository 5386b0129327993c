// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// HEADROOM_TEST_MAIN(TestClass, AppClass): the main() of every Headroom test program.
// Like QTEST_MAIN, with one difference: Qt Test 6.4 marks a test function that throws as
// "Caught unhandled exception" and then rethrows, which aborts the program with a stack dump
// and no word of what was thrown. Here the rethrown exception is caught, its message (an
// InputError's field and sentence) is printed as a failure, and the program exits 1.
// AppClass: QCoreApplication for headless tests, QApplication for widget tests.

#include "core/inputerror.h"

#include <QtTest>
#include <cstdio>
#include <exception>

#define HEADROOM_TEST_MAIN(TestObject, AppClass)                                                   \
    int main(int argc, char *argv[])                                                               \
    {                                                                                              \
        AppClass app(argc, argv);                                                                  \
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
