// SPDX-License-Identifier: GPL-3.0-or-later
// Headroom: a QCoreApplication for the command line, a QApplication otherwise.
#include "commandline.h"
#include "mainwindow.h"
#include "reportwriter.h"

#include <QApplication>
#include <QCoreApplication>
#include <QFileInfo>
#include <QLocale>
#include <QTextStream>
#include <QTranslator>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

namespace {
void describe()
{
    QCoreApplication::setOrganizationName(QStringLiteral("Headroom"));
    QCoreApplication::setApplicationName(QStringLiteral("headroom"));
    QCoreApplication::setApplicationVersion(QStringLiteral(HEADROOM_VERSION));
    // The translation for the user's locale, when one is compiled in (translations/README.md).
    static QTranslator translator;
    if (translator.load(QLocale(), QStringLiteral("headroom"), QStringLiteral("_"), QStringLiteral(":/i18n")))
        QCoreApplication::installTranslator(&translator);
}

// The exit status of a command whose output went to `out` (stdout): the
// command's own code, or 1 with a line on stderr when the output could not
// be written in full (a full disk, a closed pipe, /dev/full): a script must
// never take a missing answer for success.
int finish(int code, QTextStream &out, QTextStream &err)
{
    out.flush();
    const bool streamFailed = out.status() != QTextStream::Ok;
    errno = 0;
    const bool fileFailed = std::fflush(stdout) != 0 || std::ferror(stdout) != 0;
    const int why = errno;
    if (streamFailed || fileFailed) {
        err << "error: cannot write the output to stdout"
            << (why != 0 ? QStringLiteral(": %1").arg(QString::fromLocal8Bit(std::strerror(why))) : QString()) << '\n';
        code = code == 0 ? 1 : code;
    }
    err.flush();
    return code;
}
} // namespace

int main(int argc, char *argv[])
{
    QStringList arguments;
    for (int i = 0; i < argc; ++i)
        arguments << QString::fromLocal8Bit(argv[i]);
    if (arguments.value(1) == QLatin1String("report")) {
        // The report paints charts: a QApplication, offscreen when there is no display.
        if (qEnvironmentVariableIsEmpty("DISPLAY") && qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY")
            && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
            qputenv("QT_QPA_PLATFORM", "offscreen");
        QApplication app(argc, argv);
        describe();
        QTextStream out(stdout), err(stderr);
        const int code = Headroom::CommandLine::run(
            QCoreApplication::arguments(), out, err,
            [](const Headroom::Scenario &s, const Headroom::CapacityResult &r, const QString &name, Headroom::UnitSystem units,
               const QString &path, const QString &size) {
                QString error;
                Headroom::ReportInput input{name, s, r, units, {}};
                const bool ok = Headroom::ReportWriter::writePdf(
                    path, input, size.compare(QLatin1String("Letter"), Qt::CaseInsensitive) == 0 ? QPageSize::Letter : QPageSize::A4, &error);
                return ok ? QString() : error;
            });
        return finish(code, out, err);
    }
    if (Headroom::CommandLine::wants(arguments)) {
        QCoreApplication app(argc, argv);
        describe();
        QTextStream out(stdout), err(stderr);
        const int code = Headroom::CommandLine::run(QCoreApplication::arguments(), out, err);
        return finish(code, out, err);
    }
    QApplication app(argc, argv);
    describe();
    QGuiApplication::setApplicationDisplayName(QStringLiteral("Headroom"));
    QGuiApplication::setDesktopFileName(QStringLiteral("io.github.headroom.Headroom"));
    Headroom::MainWindow window;
    window.show();
    // `headroom plan.headroom` opens that scenario, by its absolute path: the recent files and
    // the scenario reopened at the next start must name it from any folder.
    if (arguments.size() > 1 && !arguments.at(1).startsWith(QLatin1Char('-')))
        window.openScenario(QFileInfo(arguments.at(1)).absoluteFilePath());
    return app.exec();
}
