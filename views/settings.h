// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/units.h"
#include "inputs/engineprofile.h"

#include <QByteArray>
#include <QSettings>
#include <QString>
#include <QStringList>
#include <memory>

namespace Headroom {

/// The window's persistent settings, in one place and versioned (Zeal's
/// settings wrapper; heaptrack's window state saved with a version key):
/// display units, the engine rule a new scenario starts with, the scenario
/// last opened or saved, recent files and the window layout (geometry,
/// dock/toolbar state and each splitter). The constructor runs migrate(), so
/// every reader sees the current layout of keys. Values that cannot be read
/// (a damaged or hand-edited file) fall back to the defaults.
class Settings
{
public:
    /// Layout of the keys. 1: "window/version", "window/geometry",
    /// "window/state", "units" (GB/GiB) and "recentFiles" at the top level.
    /// 2: "version", "window/*" plus "window/splitters/<name>",
    /// "display/units", "plan/defaultEngine", "plan/lastScenario", "recentFiles".
    static constexpr int kVersion = 2;

    /// The application's settings (QSettings with the organisation and
    /// application names set in main.cpp).
    Settings();
    /// Settings kept in the INI file at `path` (tests, a portable install).
    explicit Settings(const QString &path);
    ~Settings();

    /// Brings older keys to kVersion: v1's "units" moves to "display/units",
    /// its window geometry is kept and its toolbar state (saved under version
    /// 1) dropped. Idempotent; a newer version than this build knows is left
    /// alone and read as far as the keys agree.
    void migrate();
    /// The version of the key layout stored (0 for empty settings).
    int version() const;

    UnitSystem units() const;
    void setUnits(UnitSystem units);
    /// The engine rule a new scenario starts with (Plain by default).
    Engine defaultEngine() const;
    void setDefaultEngine(Engine engine);
    /// The scenario file last opened or saved (empty when none).
    QString lastScenario() const;
    void setLastScenario(const QString &path);
    /// The folder a file was last exported to (a report, a chart, figures), for the next
    /// export dialog to open in; when none is kept or it is gone, the user's documents
    /// folder (QStandardPaths::DocumentsLocation), else the home folder. Never the working folder.
    QString exportFolder() const;
    void setExportFolder(const QString &folder);
    /// Most recent first, at most 8.
    QStringList recentFiles() const;
    /// Puts `path` first in the recent files (at most 8 kept).
    void addRecentFile(const QString &path);

    /// QMainWindow::saveGeometry() / saveState(kVersion) output.
    QByteArray windowGeometry() const;
    void setWindowGeometry(const QByteArray &geometry);
    QByteArray windowState() const;
    void setWindowState(const QByteArray &state);
    /// QSplitter::saveState() of the splitter called `name` (empty when unknown).
    QByteArray splitterState(const QString &name) const;
    void setSplitterState(const QString &name, const QByteArray &state);

    /// Writes pending changes to disk (QSettings::sync).
    void sync();

private:
    std::unique_ptr<QSettings> m_settings;
};

} // namespace Headroom
