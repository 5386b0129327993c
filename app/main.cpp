// SPDX-License-Identifier: GPL-3.0-or-later
// Headroom: a QCoreApplication for the command line, a QApplication otherwise.
#include "commandline.h"
#include "mainwindow.h"
#include "reportwriter.h"

#include <QApplication>
#include <QCoreApplication>
#include <QFileInfo>
#include <QLocale>
#include <QSocketNotifier>
#include <QTextStream>
#include <QTranslator>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <sys/socket.h>
#include <unistd.h>

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

// SIGTERM (`kill PID`, a logout) and SIGINT (Ctrl+C in the terminal) end the window as a quit
// does, through the event loop: the handler only writes a byte to this socket pair (write() is
// async-signal-safe), which a QSocketNotifier reads (the Qt documentation's "Calling Qt Functions
// From Unix Signal Handlers"). `./dev run`'s "kill PID" then exits 0, where dying by the signal
// left status 143 and the shell's "Terminated".
int signalSocket[2] = {-1, -1};

void onSignal(int)
{
    const char byte = 1;
    [[maybe_unused]] const ssize_t written = ::write(signalSocket[1], &byte, 1);
}

// Routes SIGTERM and SIGINT to `quit` in the event loop; false when the socket pair cannot be made.
bool quitOnSignals(QObject *owner, const std::function<void()> &quit)
{
    if (::socketpair(AF_UNIX, SOCK_STREAM, 0, signalSocket) != 0)
        return false;
    auto *notifier = new QSocketNotifier(signalSocket[0], QSocketNotifier::Read, owner);
    QObject::connect(notifier, &QSocketNotifier::activated, owner, [quit] {
        char byte;
        [[maybe_unused]] const ssize_t got = ::read(signalSocket[0], &byte, 1);
        quit();
    });
    struct sigaction action = {};
    action.sa_handler = onSignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    return ::sigaction(SIGTERM, &action, nullptr) == 0 && ::sigaction(SIGINT, &action, nullptr) == 0;
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
// Qt's note on a machine without a login session ("QStandardPaths: XDG_RUNTIME_DIR not set,
// defaulting to '/tmp/runtime-root'", qstandardpaths_unix.cpp) is left out of a headless
// report's output: Qt goes on with that folder, and the note read as the report's own
// complaint (a trial). Every other message goes to Qt's handler as before.
QtMessageHandler qtHandler = nullptr;
void withoutRuntimeDirNote(QtMsgType type, const QMessageLogContext &context, const QString &message)
{
    if (type == QtWarningMsg && message.startsWith(QLatin1String("QStandardPaths: XDG_RUNTIME_DIR not set")))
        return;
    qtHandler(type, context, message);
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
        qtHandler = qInstallMessageHandler(withoutRuntimeDirNote);
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
    quitOnSignals(&window, [&window] { window.endWithoutQuestion(); });
    window.show();
    // `headroom plan.headroom` opens that scenario, by its absolute path: the recent files and
    // the scenario reopened at the next start must name it from any folder.
    if (arguments.size() > 1 && !arguments.at(1).startsWith(QLatin1Char('-')))
        window.openScenario(QFileInfo(arguments.at(1)).absoluteFilePath());
    return app.exec();
}
