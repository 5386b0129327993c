// SPDX-License-Identifier: GPL-3.0-or-later
#include "tokenspinbox.h"
#include "chartstyle.h"

#include "core/inputerror.h"
#include "core/units.h"

#include <QApplication>
#include <QKeyEvent>
#include <QLineEdit>
#include <QStyle>
#include <QStyleOptionSpinBox>
#include <QToolTip>

#include <cmath>

namespace Headroom {

TokenSpinBox::TokenSpinBox(QWidget *parent)
    : QAbstractSpinBox(parent)
{
    setKeyboardTracking(false);
    setToolTip(m_reading);
    setCorrectionMode(QAbstractSpinBox::CorrectToPreviousValue);
    connect(this, &QAbstractSpinBox::editingFinished, this, &TokenSpinBox::commit);
    connect(lineEdit(), &QLineEdit::textEdited, this, [this](const QString &text) {
        QString why;
        interpret(text, &why);
        setProblem(why);
    });
    showValue();
}

void TokenSpinBox::setValue(qint64 value)
{
    value = std::clamp(value, m_minimum, m_maximum);
    const bool changed = value != m_value;
    m_value = value;
    showValue();
    if (changed)
        Q_EMIT valueChanged(m_value);
}

void TokenSpinBox::setRange(qint64 minimum, qint64 maximum)
{
    m_minimum = minimum;
    m_maximum = std::max(minimum, maximum);
    setValue(m_value);
    updateGeometry();
}

void TokenSpinBox::setSuffix(const QString &suffix)
{
    m_suffix = suffix;
    showValue();
    updateGeometry();
}

QString TokenSpinBox::format(qint64 value) const
{
    if (value == m_minimum && !specialValueText().isEmpty())
        return specialValueText();
    return Units::formatCount(value, Units::userLocale()) + m_suffix;
}

std::optional<qint64> TokenSpinBox::interpret(const QString &input, QString *why) const
{
    QString text = input.trimmed();
    if (!specialValueText().isEmpty() && text.compare(specialValueText(), Qt::CaseInsensitive) == 0)
        return m_minimum;
    const QString suffix = m_suffix.trimmed();
    if (!suffix.isEmpty() && text.endsWith(suffix, Qt::CaseInsensitive))
        text = text.chopped(suffix.size()).trimmed();
    const QString field = m_field.isEmpty() ? accessibleName() : m_field;
    try {
        const qint64 v = Units::parseCount(text, field, std::min<qint64>(m_minimum, 0), Units::userLocale());
        if (v < m_minimum || v > m_maximum) {
            if (why)
                *why = tr("%1: %2 is outside %3 to %4").arg(field, Units::formatCount(v, Units::userLocale()),
                                                           Units::formatCount(m_minimum, Units::userLocale()),
                                                           Units::formatCount(m_maximum, Units::userLocale()));
            return std::nullopt;
        }
        return v;
    } catch (const InputError &e) {
        if (why)
            *why = e.text();
        return std::nullopt;
    }
}

QValidator::State TokenSpinBox::validate(QString &input, int &) const
{
    // Never Invalid: every keystroke reaches the box, and what is not yet a
    // number shows as invalid instead of being refused unseen.
    return interpret(input) ? QValidator::Acceptable : QValidator::Intermediate;
}

void TokenSpinBox::fixup(QString &) const
{
    // Nothing to guess: invalid text stays, shown as invalid, until corrected.
}

void TokenSpinBox::commit()
{
    QString why;
    const QString typed = lineEdit()->text();
    const std::optional<qint64> v = interpret(typed, &why);
    if (!v) {
        setProblem(why);
        if (hasFocus())
            QToolTip::showText(mapToGlobal(rect().bottomLeft()), why, this);
        Q_EMIT noted(why);
        return;
    }
    setValue(*v);
    showValue();
    // A k or M typed is decimal, as on the command line, where a model's "128K" is often 2^17 =
    // 131,072 (128 Ki): how it was read is said where it was typed, and kept as the tooltip.
    QString number = typed.trimmed();
    if (!m_suffix.trimmed().isEmpty() && number.endsWith(m_suffix.trimmed(), Qt::CaseInsensitive))
        number = number.chopped(m_suffix.trimmed().size()).trimmed();
    const QString reading = Units::decimalSuffixReading(number, *v, Units::userLocale());
    if (reading.isEmpty())
        return;
    m_reading = reading;
    setToolTip(m_reading);
    if (hasFocus())
        QToolTip::showText(mapToGlobal(rect().bottomLeft()), m_reading, this);
    Q_EMIT noted(m_reading);
}

void TokenSpinBox::showValue()
{
    // Set even when unchanged: it clears the field's own undo history, so Ctrl+Z
    // then undoes the plan (the window's rule) rather than the typing just committed.
    lineEdit()->setText(format(m_value));
    setProblem(QString());
}

void TokenSpinBox::setProblem(const QString &problem)
{
    if (problem == m_problem)
        return;
    m_problem = problem;
    ChartStyle::markInvalid(this, problem);
    // Valid again: the tooltip says how the text was read ("96K read as 96,000").
    if (problem.isEmpty())
        setToolTip(m_reading);
}

namespace {
bool revertsTypedText(const QKeyEvent *e)
{
    return e->key() == Qt::Key_Escape || e->matches(QKeySequence::Undo);
}
} // namespace

bool TokenSpinBox::event(QEvent *event)
{
    // A trial typed "1,5", pressed Enter: the box stayed red, and neither Escape nor Ctrl+Z (the
    // window's, for the plan, with nothing to undo) gave the last valid value back.
    if (event->type() == QEvent::ShortcutOverride && !m_problem.isEmpty() && revertsTypedText(static_cast<QKeyEvent *>(event))) {
        event->accept();
        return true;
    }
    return QAbstractSpinBox::event(event);
}

void TokenSpinBox::keyPressEvent(QKeyEvent *event)
{
    if (!m_problem.isEmpty() && revertsTypedText(event)) {
        showValue();
        lineEdit()->selectAll();
        event->accept();
        return;
    }
    QAbstractSpinBox::keyPressEvent(event);
}

void TokenSpinBox::stepBy(int steps)
{
    qint64 next = m_value;
    const qint64 delta = m_step * steps;
    if (qAddOverflow(m_value, delta, &next))
        next = delta > 0 ? m_maximum : m_minimum;
    setValue(next);
    lineEdit()->selectAll();
}

QAbstractSpinBox::StepEnabled TokenSpinBox::stepEnabled() const
{
    StepEnabled e = StepNone;
    if (m_value > m_minimum)
        e |= StepDownEnabled;
    if (m_value < m_maximum)
        e |= StepUpEnabled;
    return e;
}

QSize TokenSpinBox::minimumSizeHint() const
{
    return sizeHint();
}

QSize TokenSpinBox::sizeHint() const
{
    // Wide enough for 7 digits and the suffix (or the range, when smaller); wider values scroll.
    ensurePolished();
    const QFontMetrics fm(font());
    const qint64 widest = std::min<qint64>(m_maximum, 9'999'999);
    int w = std::max(fm.horizontalAdvance(format(widest)), fm.horizontalAdvance(specialValueText()));
    w += fm.horizontalAdvance(QLatin1Char(' ')) * 2;
    QStyleOptionSpinBox opt;
    initStyleOption(&opt);
    const QSize content(w, lineEdit()->sizeHint().height());
    return style()->sizeFromContents(QStyle::CT_SpinBox, &opt, content, this);
}

} // namespace Headroom
