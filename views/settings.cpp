// SPDX-License-Identifier: GPL-3.0-or-later
#include "settings.h"

#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>

namespace Headroom {

namespace {
const QString kVersionKey = QStringLiteral("version");
const QString kUnits = QStringLiteral("display/units");
const QString kEngine = QStringLiteral("plan/defaultEngine");
const QString kLastScenario = QStringLiteral("plan/lastScenario");
const QString kRecent = QStringLiteral("recentFiles");
const QString kExportFolder = QStringLiteral("files/exportFolder");
const QString kGeometry = QStringLiteral("window/geometry");
const QString kState = QStringLiteral("window/state");
const QString kSplitters = QStringLiteral("window/splitters/");
constexpr int kRecentMax = 8;
} // namespace

Settings::Settings()
    : m_settings(std::make_unique<QSettings>())
{
    migrate();
}

Settings::Settings(const QString &path)
    : m_settings(std::make_unique<QSettings>(path, QSettings::IniFormat))
{
    migrate();
}

Settings::~Settings() = default;

int Settings::version() const
{
    if (m_settings->contains(kVersionKey))
        return m_settings->value(kVersionKey).toInt();
    // Version 1 kept its number under the window group.
    return m_settings->value(QStringLiteral("window/version"), 0).toInt();
}

void Settings::migrate()
{
    const int from = version();
    if (from >= kVersion)
        return;
    if (from == 1) {
        const QString units = m_settings->value(QStringLiteral("units")).toString();
        m_settings->remove(QStringLiteral("units"));
        if (!units.isEmpty())
            m_settings->setValue(kUnits, units);
        // The toolbar state was saved under version 1 and the layout has changed since.
        m_settings->remove(kState);
        m_settings->remove(QStringLiteral("window/version"));
    }
    m_settings->setValue(kVersionKey, kVersion);
}

UnitSystem Settings::units() const
{
    return m_settings->value(kUnits).toString() == QLatin1String("GiB") ? UnitSystem::Binary : UnitSystem::Decimal;
}

void Settings::setUnits(UnitSystem units)
{
    m_settings->setValue(kUnits, Units::gigaLabel(units));
}

Engine Settings::defaultEngine() const
{
    const QString name = m_settings->value(kEngine).toString();
    for (Engine e : Engines::all())
        if (Engines::name(e) == name)
            return e;
    return Engine::Plain;
}

void Settings::setDefaultEngine(Engine engine)
{
    m_settings->setValue(kEngine, Engines::name(engine));
}

QString Settings::lastScenario() const
{
    return m_settings->value(kLastScenario).toString();
}

void Settings::setLastScenario(const QString &path)
{
    m_settings->setValue(kLastScenario, path);
}

QString Settings::exportFolder() const
{
    const QString kept = m_settings->value(kExportFolder).toString();
    if (!kept.isEmpty() && QFileInfo(kept).isDir())
        return kept;
    const QString documents = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
    return !documents.isEmpty() && QFileInfo(documents).isDir() ? documents : QDir::homePath();
}

void Settings::setExportFolder(const QString &folder)
{
    m_settings->setValue(kExportFolder, folder);
}

QStringList Settings::recentFiles() const
{
    return m_settings->value(kRecent).toStringList().mid(0, kRecentMax);
}

void Settings::addRecentFile(const QString &path)
{
    QStringList recent = recentFiles();
    recent.removeAll(path);
    recent.prepend(path);
    m_settings->setValue(kRecent, recent.mid(0, kRecentMax));
}

QByteArray Settings::windowGeometry() const
{
    return m_settings->value(kGeometry).toByteArray();
}

void Settings::setWindowGeometry(const QByteArray &geometry)
{
    m_settings->setValue(kGeometry, geometry);
}

QByteArray Settings::windowState() const
{
    return m_settings->value(kState).toByteArray();
}

void Settings::setWindowState(const QByteArray &state)
{
    m_settings->setValue(kState, state);
}

QByteArray Settings::splitterState(const QString &name) const
{
    return m_settings->value(kSplitters + name).toByteArray();
}

void Settings::setSplitterState(const QString &name, const QByteArray &state)
{
    m_settings->setValue(kSplitters + name, state);
}

void Settings::sync()
{
    m_settings->sync();
}

} // namespace Headroom
