// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// runHeadroom(args, home, workDir, timeoutMs): one run of the command-line program
// (HEADROOM_BINARY, a compile definition of the test) for the tests that call it as a user does.
// Its preset store and settings live in `home` (XDG_DATA_HOME and HOME), never the user's; it
// starts in `workDir` when one is given. A run still going after `timeoutMs` is killed and
// reported as a hang (code -2); a crash is code -1; otherwise code is the exit status.

#include <QByteArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>
#include <QTest>

namespace HeadroomTest {

/// What one run of the program gave: exit status (-2 hung, -1 crashed), standard output and error.
struct CliRun
{
    int code = -2;
    QByteArray out;
    QByteArray err;
    /// Standard output read as one JSON object. Output that is not one (text, an error message,
    /// nothing) fails the running test function here, quoting what came, and gives an empty
    /// object: two runs that both printed no JSON must never compare equal unnoticed.
    QJsonObject json() const
    {
        QJsonParseError error;
        const QJsonDocument d = QJsonDocument::fromJson(out, &error);
        if (error.error != QJsonParseError::NoError || !d.isObject())
            QTest::qFail(qPrintable(QStringLiteral("standard output is not a JSON object (%1; exit %2): %3")
                                        .arg(error.error != QJsonParseError::NoError ? error.errorString() : QStringLiteral("not an object"))
                                        .arg(code)
                                        .arg(QString::fromUtf8(out.left(300) + err.left(300)))),
                         __FILE__, __LINE__);
        return d.object();
    }
    /// Standard output and error as text (UTF-8).
    QString outText() const { return QString::fromUtf8(out); }
    QString errText() const { return QString::fromUtf8(err); }
};

/// Runs the program with `args`, its data and home in `home`, from `workDir` (empty: the test's own).
inline CliRun runHeadroom(const QStringList &args, const QString &home, const QString &workDir = {}, int timeoutMs = 120000)
{
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("XDG_DATA_HOME"), home);
    env.insert(QStringLiteral("HOME"), home);
    p.setProcessEnvironment(env);
    if (!workDir.isEmpty())
        p.setWorkingDirectory(workDir);
    p.start(QStringLiteral(HEADROOM_BINARY), args);
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
        return {};
    }
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput(), p.readAllStandardError()};
}

} // namespace HeadroomTest
