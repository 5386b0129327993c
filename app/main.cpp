// SPDX-License-Identifier: GPL-3.0-or-later
// Headroom: a QCoreApplication for the command line, a QApplication otherwise.
#include "commandline.h"
#include "mainwindow.h"

#include <QApplication>
#include <QCoreApplication>
#include <QTextStream>
#include <cstdio>
#include <memory>

namespace {
void describe()
{
    QCoreApplication::setOrganizationName(QStringLiteral("Headroom"));
    QCoreApplication::setApplicationName(QStringLiteral("headroom"));
    QCoreApplication::setApplicationVersion(QStringLiteral(HEADROOM_VERSION));
}
} // namespace

int main(int argc, char *argv[])
{
    QStringList arguments;
    for (int i = 0; i < argc; ++i)
        arguments << QString::fromLocal8Bit(argv[i]);
    if (Headroom::CommandLine::wants(arguments)) {
        QCoreApplication app(argc, argv);
        describe();
        QTextStream out(stdout), err(stderr);
        const int code = Headroom::CommandLine::run(QCoreApplication::arguments(), out, err);
        out.flush();
        err.flush();
        return code;
    }
    QApplication app(argc, argv);
    describe();
    QGuiApplication::setApplicationDisplayName(QStringLiteral("Headroom"));
    QGuiApplication::setDesktopFileName(QStringLiteral("io.github.headroom.Headroom"));
    Headroom::MainWindow window;
    window.show();
    return app.exec();
}
