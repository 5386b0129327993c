// SPDX-License-Identifier: GPL-3.0-or-later
// Tools > Presets offscreen: search, a GPU typed in by keyboard and saved,
// a refusal that names the field and puts the focus on it, undo and redo of
// every change, built-ins read-only, a model from a config.json, and a
// bundle exported from one data folder imported into another.
// With HEADROOM_SCREENSHOTS=DIR set, the dialog is also saved as PNGs there
// (for looking at it under xvfb-run; nothing is asserted on them).
#include "mainwindow.h"
#include "presetbundle.h"
#include "presetmanager.h"
#include "presetstore.h"

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QLineEdit>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSet>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QUndoStack>

using namespace Headroom;

class TestPresetManager : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;

    QString store(const char *name) const { return m_dir.filePath(QString::fromLatin1(name)); }

    static void type(PresetManager &d, const char *field, const QString &text)
    {
        auto *line = qobject_cast<QLineEdit *>(d.fieldEditor(QString::fromLatin1(field)));
        QVERIFY2(line, field);
        line->selectAll();
        QTest::keyClicks(line, text);
    }

    static void shoot(QWidget &w, const char *name)
    {
        const QString dir = qEnvironmentVariable("HEADROOM_SCREENSHOTS");
        if (!dir.isEmpty())
            w.grab().save(QDir(dir).filePath(QString::fromLatin1(name)));
    }

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(m_dir.isValid());
    }

    void toolsMenuOpensIt()
    {
        MainWindow w(store("window.sqlite"));
        w.show();
        QAction *open = nullptr;
        for (QAction *a : w.findChildren<QAction *>())
            if (a->text() == QStringLiteral("&Presets…"))
                open = a;
        QVERIFY(open);
        bool seen = false;
        QTimer::singleShot(0, [&seen] {
            auto *dialog = qobject_cast<PresetManager *>(QApplication::activeModalWidget());
            seen = dialog && dialog->rowCount() == int(PresetStore::builtInPresets().size());
            if (dialog)
                dialog->reject();
        });
        open->trigger();
        QVERIFY(seen);
    }

    void searchFindsByNameIdAndSource()
    {
        PresetManager d(store("search.sqlite"));
        d.resize(1280, 720);
        d.show();
        QCOMPARE(d.rowCount(), int(PresetStore::builtInPresets().size()));
        shoot(d, "presets-all.png");
        d.setSearch(QStringLiteral("H100"));
        // The documented rule: the name, id or source holds the text, in any case.
        QSet<QString> expected;
        for (const PresetRecord &r : PresetStore::builtInPresets())
            if (r.name.contains(QStringLiteral("h100"), Qt::CaseInsensitive) || r.id.contains(QStringLiteral("h100"))
                || r.source.contains(QStringLiteral("H100"), Qt::CaseInsensitive))
                expected.insert(r.id);
        QVERIFY(expected.contains(QStringLiteral("h100-sxm-80gb")) && expected.contains(QStringLiteral("h100-pcie-80gb")));
        QSet<QString> shown;
        for (int row = 0; row < d.rowCount(); ++row)
            shown.insert(d.idAt(row));
        QCOMPARE(shown, expected);
        QVERIFY2(shown.contains(d.currentId()), qPrintable(d.currentId())); // the form follows the list
        shoot(d, "presets-search.png");
        d.setSearch(QStringLiteral("no such preset anywhere"));
        QCOMPARE(d.rowCount(), 0);
        QVERIFY(d.currentId().isEmpty());
    }

    void builtInsAreReadOnly()
    {
        PresetManager d(store("readonly.sqlite"));
        d.show();
        QVERIFY(d.selectPreset(QStringLiteral("h100-sxm-80gb")));
        QCOMPARE(d.currentId(), QStringLiteral("h100-sxm-80gb"));
        auto *memory = qobject_cast<QLineEdit *>(d.fieldEditor(QStringLiteral("memory_bytes")));
        QVERIFY(memory->isReadOnly());
        QCOMPARE(memory->text(), QStringLiteral("81559MiB")); // memory_bytes 85,520,809,984 = 81,559 x 2^20, shown exactly
        QVERIFY(!d.deleteCurrent());
        QVERIFY(d.statusText().contains(QStringLiteral("built-in")));
        QVERIFY(!d.saveForm());
    }

    void addEditUndoRedo()
    {
        const QString path = store("edit.sqlite");
        PresetManager d(path);
        d.resize(1280, 720);
        d.show();
        d.newGpu();
        type(d, "id", QStringLiteral("lab-card"));
        type(d, "name", QStringLiteral("Lab card"));
        type(d, "memory_bytes", QStringLiteral("24"));
        // A bare number is refused, naming the field, with the focus on it.
        QVERIFY(!d.saveForm());
        QVERIFY2(d.statusText().startsWith(QStringLiteral("Memory per card (memory_bytes): ")), qPrintable(d.statusText()));
        QCOMPARE(d.focusWidget(), d.fieldEditor(QStringLiteral("memory_bytes")));
        shoot(d, "presets-refused.png");
        type(d, "memory_bytes", QStringLiteral("24GB"));
        type(d, "price_date", QStringLiteral("soon"));
        QVERIFY(!d.saveForm());
        QVERIFY2(d.statusText().startsWith(QStringLiteral("Price date (price_date): ")), qPrintable(d.statusText()));
        type(d, "price_date", QStringLiteral("2026-12-01"));
        type(d, "price_usd_per_hour", QStringLiteral("0.8"));
        QVERIFY2(d.saveForm(), qPrintable(d.statusText()));
        shoot(d, "presets-saved.png");
        {
            PresetStore check(path);
            QString error;
            QVERIFY(check.open(&error));
            const PresetRecord r = check.find(QStringLiteral("lab-card"));
            QVERIFY(!r.builtIn);
            QCOMPARE(qint64(r.json.value(QStringLiteral("memory_bytes")).toDouble()), qint64(24'000'000'000));
            QCOMPARE(r.json.value(QStringLiteral("price_usd_per_hour")).toDouble(), 0.8);
        }
        // An edit, then undo and redo of the edit and of the add.
        type(d, "price_usd_per_hour", QStringLiteral("0.7"));
        QVERIFY(d.saveForm());
        QCOMPARE(d.undoStack()->count(), 2);
        auto price = [&] {
            PresetStore check(path);
            QString error;
            check.open(&error);
            return check.find(QStringLiteral("lab-card")).json.value(QStringLiteral("price_usd_per_hour")).toDouble(-1);
        };
        QCOMPARE(price(), 0.7);
        // Ctrl+Z is bound in the dialog (the action is triggered directly: offscreen windows take no key focus).
        QAction *undo = nullptr;
        for (QAction *a : d.actions())
            if (a->shortcut() == QKeySequence(QKeySequence::Undo))
                undo = a;
        QVERIFY(undo);
        undo->trigger();
        QCOMPARE(price(), 0.8);
        d.undoStack()->undo();
        QCOMPARE(price(), -1.0); // gone
        d.undoStack()->redo();
        d.undoStack()->redo();
        QCOMPARE(price(), 0.7);
        // Delete, and undo brings it back whole.
        QVERIFY(d.selectPreset(QStringLiteral("lab-card")));
        QVERIFY(d.deleteCurrent());
        QCOMPARE(price(), -1.0);
        d.undoStack()->undo();
        QCOMPARE(price(), 0.7);
    }

    void unsavedEditsAreNotDroppedSilently()
    {
        PresetManager d(store("unsaved.sqlite"));
        d.show();
        d.newGpu();
        QVERIFY(!d.formEdited()); // nothing typed yet
        type(d, "name", QStringLiteral("Half-typed card"));
        QVERIFY(d.formEdited());
        // Esc asks; Cancel keeps the dialog and the text.
        auto answer = [](QMessageBox::StandardButton button) {
            QTimer::singleShot(0, [button] {
                auto *box = qobject_cast<QMessageBox *>(QApplication::activeModalWidget());
                QVERIFY(box);
                box->button(button)->click();
            });
        };
        answer(QMessageBox::Cancel);
        d.reject();
        QVERIFY(d.isVisible());
        QCOMPARE(qobject_cast<QLineEdit *>(d.fieldEditor(QStringLiteral("name")))->text(), QStringLiteral("Half-typed card"));
        answer(QMessageBox::Discard);
        d.reject();
        QVERIFY(!d.isVisible());
    }

    void duplicateABuiltIn()
    {
        const QString path = store("duplicate.sqlite");
        PresetManager d(path);
        d.show();
        QVERIFY(d.selectPreset(QStringLiteral("h100-sxm-80gb")));
        d.duplicateCurrent();
        QCOMPARE(d.currentId(), QStringLiteral("h100-sxm-80gb-copy"));
        type(d, "price_usd_per_hour", QStringLiteral("1.85"));
        QVERIFY2(d.saveForm(), qPrintable(d.statusText()));
        PresetStore check(path);
        QString error;
        QVERIFY(check.open(&error));
        const QJsonObject shipped = check.find(QStringLiteral("h100-sxm-80gb")).json;
        QJsonObject copy = check.find(QStringLiteral("h100-sxm-80gb-copy")).json;
        QCOMPARE(copy.value(QStringLiteral("price_usd_per_hour")).toDouble(), 1.85);
        QCOMPARE(copy.value(QStringLiteral("name")).toString(), shipped.value(QStringLiteral("name")).toString() + QStringLiteral(" (copy)"));
        // Every other field as shipped (the form shows them all; none is lost on the way through it).
        for (const QString &key : {QStringLiteral("id"), QStringLiteral("name"), QStringLiteral("price_usd_per_hour")})
            copy.remove(key);
        for (auto it = copy.constBegin(); it != copy.constEnd(); ++it)
            QVERIFY2(shipped.value(it.key()) == it.value(), qPrintable(it.key()));
        QCOMPARE(copy.size() + 3, shipped.size());
        QVERIFY(check.find(QStringLiteral("h100-sxm-80gb")).builtIn);
    }

    void modelFromConfigJson()
    {
        const QString path = store("config.sqlite");
        PresetManager d(path);
        d.resize(1280, 720);
        d.show();
        QVERIFY(d.importConfig(QStringLiteral(HEADROOM_TEST_DATA "/qwen3-0.6b/config.json")));
        type(d, "id", QStringLiteral("tiny-qwen"));
        type(d, "name", QStringLiteral("Tiny Qwen"));
        auto *config = qobject_cast<QPlainTextEdit *>(d.fieldEditor(QStringLiteral("config")));
        QVERIFY(config->toPlainText().contains(QStringLiteral("\"num_hidden_layers\": 28")));
        QVERIFY2(d.saveForm(), qPrintable(d.statusText()));
        shoot(d, "presets-model.png");
        // A config the importer refuses is named by its field.
        config->setPlainText(config->toPlainText().replace(QStringLiteral("\"num_hidden_layers\": 28"), QStringLiteral("\"num_hidden_layers\": 0")));
        QVERIFY(!d.saveForm());
        QVERIFY2(d.statusText().startsWith(QStringLiteral("num_hidden_layers: ")), qPrintable(d.statusText()));
    }

    void bundleBetweenTwoDataFolders()
    {
        QTemporaryDir here, there;
        const QString bundle = here.filePath(QStringLiteral("team.json"));
        QJsonObject made;
        {
            PresetManager d(here.filePath(QStringLiteral("presets.sqlite")));
            d.show();
            QVERIFY(!d.exportBundle(bundle)); // nothing of the user's yet
            d.newGpu();
            type(d, "id", QStringLiteral("team-h100"));
            type(d, "name", QStringLiteral("Team H100"));
            type(d, "memory_bytes", QStringLiteral("81559MiB"));
            type(d, "bandwidth_bytes_per_s", QStringLiteral("3.35TB/s"));
            type(d, "price_source", QStringLiteral("Contract 7"));
            QVERIFY2(d.saveForm(), qPrintable(d.statusText()));
            QVERIFY2(d.exportBundle(bundle), qPrintable(d.statusText()));
            PresetStore s(here.filePath(QStringLiteral("presets.sqlite")));
            QString error;
            QVERIFY(s.open(&error));
            made = s.find(QStringLiteral("team-h100")).json;
        }
        QCOMPARE(qint64(made.value(QStringLiteral("bandwidth_bytes_per_s")).toDouble()), qint64(3'350'000'000'000));
        PresetManager d(there.filePath(QStringLiteral("presets.sqlite")));
        d.show();
        QVERIFY2(d.importBundle(bundle, false), qPrintable(d.statusText()));
        QVERIFY(d.selectPreset(QStringLiteral("team-h100")));
        shoot(d, "presets-imported.png");
        {
            PresetStore s(there.filePath(QStringLiteral("presets.sqlite")));
            QString error;
            QVERIFY(s.open(&error));
            QCOMPARE(s.find(QStringLiteral("team-h100")).json, made);
        }
        // The import is one undo step.
        d.undoStack()->undo();
        PresetStore s(there.filePath(QStringLiteral("presets.sqlite")));
        QString error;
        QVERIFY(s.open(&error));
        QVERIFY(s.find(QStringLiteral("team-h100")).id.isEmpty());
    }
};

QTEST_MAIN(TestPresetManager)
#include "tst_presetmanager.moc"
