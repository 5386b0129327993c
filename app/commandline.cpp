// SPDX-License-Identifier: GPL-3.0-or-later
// The dispatcher: one shared option table (commands/options.h, commands/presetflags.h), one
// file per command (commands/<command>.cpp) and one row per command in the table below.
#include "commandline.h"

#include "commands/commands.h"
#include "commands/options.h"
#include "commands/presetflags.h"
#include "core/inputerror.h"

#include <QCoreApplication>
#include <QFileInfo>

namespace Headroom {

namespace {

/// One command: its word, how the command argument's help names it, its lines in --help's
/// list of commands, and the function that runs it.
struct Command
{
    const char *word;
    const char *usage;
    const char *summary;
    CommandRunner run;
};

/// Every command, in --help's order. A new command is one file under commands/ and one row here.
const Command commands[] = {
    {"plan", "plan", "  plan            capacity of one scenario (figures, derivation; --json)\n", &runPlan},
    {"presets", "presets list|add|edit|remove|export|import",
     "  presets list    built-in and your model and GPU presets (--json)\n"
     "  presets add gpu|model ID, edit ID, remove ID: your own presets (field flags below)\n"
     "  presets export FILE|- [ID...], import FILE [--replace]: share your presets as one JSON bundle (-: stdout)\n",
     &runPresets},
    {"calibrate", "calibrate LOG", "  calibrate LOG   read a vLLM, SGLang, TensorRT-LLM, llama.cpp or Ollama (server.log) start-up log;\n"
     "                  printed vs predicted, at the settings the log prints (--json)\n"
     "                  or a benchmark (vllm bench serve, sglang.bench_serving, llama-bench): fits the card's\n"
     "                  bandwidth efficiency and compute utilization to its times (--gpu, --model)\n", &runCalibrate},
    {"report", "report", "  report          the PDF capacity report: the plan flags or --scenario FILE, and -o report.pdf\n", &runReport},
    {"levers", "levers", "  levers          the four levers priced: precision, attention, retention, memory (--json)\n", &runLevers},
    {"replay", "replay --trace FILE", "  replay          a trace's arrivals on R replicas: prefix hits, preemptions, queue, fleet (--json)\n", &runReplay},
    {"diagnose", "diagnose", "  diagnose        explain a failure: --failed-at-sessions N --context TOKENS (--json)\n", &runDiagnose},
};

/// The command named `word`, else nullptr.
const Command *commandNamed(const QString &word)
{
    for (const Command &c : commands)
        if (word == QLatin1String(c.word))
            return &c;
    return nullptr;
}

/// The commands' words (`usage`: their usages) as a list read aloud: "a, b, c or d".
QString commandList(bool usage)
{
    QStringList names;
    for (const Command &c : commands)
        names << QString::fromLatin1(usage ? c.usage : c.word);
    const QString last = names.takeLast();
    return names.join(QStringLiteral(", ")) + QStringLiteral(" or ") + last;
}

/// The parser of every command's flags, with --help's description of the commands.
void describeCommands(QCommandLineParser &p)
{
    QString description = QStringLiteral("Headroom: how many long LLM sessions fit on a GPU, and what they cost.\n\nCommands:\n");
    for (const Command &c : commands)
        description += QString::fromLatin1(c.summary);
    p.setApplicationDescription(description + QStringLiteral("Without a command, the window opens."));
    p.setOptionsAfterPositionalArgumentsMode(QCommandLineParser::ParseAsOptions);
    p.addPositionalArgument(QStringLiteral("command"), commandList(true));
}

} // namespace

bool CommandLine::wants(const QStringList &arguments)
{
    if (arguments.size() < 2)
        return false;
    const QString first = arguments.at(1);
    // A command word is always a command, even when a file of that name lies in the current
    // folder (./plan opens that file); another word that is not a file is reported as an
    // unknown command, not taken for the window; a file opens in the window.
    if (commandNamed(first))
        return true;
    if (!first.startsWith(QLatin1Char('-')))
        return !QFileInfo(first).isFile();
    return first == QLatin1String("--help") || first == QLatin1String("-h") || first == QLatin1String("--version");
}

int CommandLine::run(const QStringList &arguments, QTextStream &out, QTextStream &err, const ReportWriterHook &writeReport)
{
    QCommandLineParser p;
    describeCommands(p);
    const QCommandLineOption help = p.addHelpOption();
    const QCommandLineOption version = p.addVersionOption();
    addCommandOptions(p);
    addPresetOptions(p);
    if (!p.parse(arguments)) {
        err << "error: " << p.errorText() << '\n';
        return 2;
    }
    if (p.isSet(help) || (arguments.size() > 1 && arguments.at(1) == QLatin1String("help"))) {
        out << p.helpText();
        return 0;
    }
    if (p.isSet(version)) {
        out << QCoreApplication::applicationName() << ' ' << QCoreApplication::applicationVersion() << '\n';
        return 0;
    }
    if (!refuseRepeatedOptions(p, err))
        return 2;
    const QString word = p.positionalArguments().value(0);
    const Command *command = commandNamed(word);
    if (!command) {
        err << "error: unknown command \"" << word << "\"; use " << commandList(false) << " (see --help)\n";
        return 2;
    }
    if (!refuseOtherCommandsOptions(p, word, err) || !refusePresetFieldFlags(p, word, err))
        return 2;
    try {
        return command->run(p, out, err, writeReport);
    } catch (const InputError &e) {
        err << "error: " << e.text() << '\n';
        return 1;
    }
}

} // namespace Headroom
