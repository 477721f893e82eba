// pto-studio [PROJECT_OR_TRACE...] [--run] [--advise] [--tune BUDGET [--dask ADDRESS]] [--view swimlane|graph|editor|summary|health|tuning|runs|advice|memory|inside]
//            [--level tensor|tile|block|exec] [--compare-run ID|previous] [--measured FILE]
//            [--theme system|light|dark] [--size WxH] [--screenshot FILE] [--exit]
// Opens each path in order (a project, then a trace, links the two), shows
// the requested view (editor, summary and tuning also give that dock the
// room: MainWindow::showView), and for docs and checks saves a screenshot
// once the window has laid out and painted, then quits with --exit (exit
// code 1 when an open or the run failed). --compare-run opens the A/B
// comparison of the current run with a recorded one (an id, or `previous`:
// the run recorded before the current one) once the runs are listed;
// --measured compares the run with a trace measured on a chip instead.
#include "app/studio/AdviceController.h"
#include "app/studio/MainWindow.h"
#include "core/ProcessMemory.h"
#include "widgets/MeasuredPanel.h"
#include "widgets/RunsPanel.h"
#include "widgets/Theme.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QPalette>
#include <QPixmap>
#include <QStyle>
#include <QStyleFactory>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string_view>

namespace {

// pto-studio's options; the window's main reads them after parsing.
struct StudioCommandLine {
  QCommandLineOption view{
      QStringLiteral("view"),
      QStringLiteral("The view to show: swimlane, graph, editor, summary, health, tuning, runs, advice, memory or inside."),
      QStringLiteral("view"), QStringLiteral("swimlane")};
  QCommandLineOption level{
      QStringLiteral("level"),
      QStringLiteral("With --view graph: the IR level to show: tensor, tile (default), block or exec."),
      QStringLiteral("level"), QStringLiteral("tile")};
  QCommandLineOption theme{QStringLiteral("theme"), QStringLiteral("system (default), light or dark."),
                           QStringLiteral("theme"), QStringLiteral("system")};
  QCommandLineOption screenshot{QStringLiteral("screenshot"),
                                QStringLiteral("Save a PNG of the window once it has painted."), QStringLiteral("file")};
  QCommandLineOption exit{QStringLiteral("exit"), QStringLiteral("Quit after opening (and the screenshot).")};
  QCommandLineOption size{QStringLiteral("size"), QStringLiteral("Window size WIDTHxHEIGHT."), QStringLiteral("size")};
  QCommandLineOption run{
      QStringLiteral("run"),
      QStringLiteral("Run the project after opening it, even with auto-run off, and record the run in the "
                     "project's run ledger (the run opening makes is not recorded; the screenshot waits for it).")};
  QCommandLineOption compare{QStringLiteral("compare-run"),
                             QStringLiteral("With --run: compare the run with recorded run ID (or 'previous', the run "
                                            "recorded before it): its swimlane beneath, time-aligned."),
                             QStringLiteral("id")};
  QCommandLineOption measured{QStringLiteral("measured"),
                              QStringLiteral("With --run: compare the run with a trace measured on a chip (PyPTO's "
                                             "merged_swimlane.json or tilefwk_L1_prof_data*.json): its swimlane "
                                             "beneath, each task coloured by its error."),
                              QStringLiteral("file")};
  QCommandLineOption advise{QStringLiteral("advise"),
                            QStringLiteral("Run the advisor on the project after opening it (the Advice panel; the "
                                           "screenshot waits for it).")};
  QCommandLineOption tune{QStringLiteral("tune"),
                          QStringLiteral("Run the tuner (grid, at most BUDGET points) after opening the project, after "
                                         "--advise if both are given (the screenshot waits for it)."),
                          QStringLiteral("budget")};
  QCommandLineOption dask{QStringLiteral("dask"),
                          QStringLiteral("With --tune: simulate the points on the Dask cluster whose scheduler is at "
                                         "ADDRESS (tcp://HOST:PORT), as pto tune --dask does."),
                          QStringLiteral("address")};

  void describe(QCommandLineParser& parser) const {
    parser.setApplicationDescription(QStringLiteral("PTO Studio: write and tune fused tile operators."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("paths"),
                                 QStringLiteral("Project folders, pto-project.json files, swimlane traces (.json) or PyPTO's "
                                                "own artifacts: folders of Pass_NNN_* graph dumps, Before_/After_*.json, "
                                                "health reports, trace_core<N>.json (see docs/pypto-artifacts.md)."),
                                 QStringLiteral("[PROJECT_OR_TRACE...]"));
    parser.addOptions({view, level, theme, screenshot, exit, size, run, compare, measured, advise, tune, dask});
  }
};

void nameApplication() {
  QCoreApplication::setOrganizationName(QStringLiteral("PTO Studio"));
  QCoreApplication::setApplicationName(QStringLiteral("pto-studio"));
  QCoreApplication::setApplicationVersion(QStringLiteral("0.1.0"));
}

// --help and --version need no window, so they are answered before a
// display is opened (without one, QApplication aborts).
bool asksForHelpOrVersion(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "-h" || arg == "--help" || arg == "-?" || arg == "--help-all" || arg == "-v" || arg == "--version")
      return true;
  }
  return false;
}

// Whether Qt has somewhere to draw: a platform chosen by QT_QPA_PLATFORM or
// -platform, or an X or Wayland display.
bool hasDisplay(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::string_view(argv[i]) == "-platform") return true;
  for (const char* variable : {"QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY"}) {
    const char* value = std::getenv(variable);
    if (value && *value) return true;
  }
  return false;
}

} // namespace

int main(int argc, char** argv) {
  pto::useHeapHugePages(argv);
  pto::keepFreedMemoryForReuse();
  if (asksForHelpOrVersion(argc, argv)) {
    QCoreApplication core(argc, argv);
    nameApplication();
    QCommandLineParser parser;
    StudioCommandLine().describe(parser);
    parser.process(core);  // prints the help or the version and exits
    return 0;
  }
  if (!hasDisplay(argc, argv)) {
    std::fprintf(stderr, "pto-studio: no display to open a window on (DISPLAY and WAYLAND_DISPLAY are not set). "
                         "Run it in a desktop session, or set QT_QPA_PLATFORM=offscreen for --screenshot FILE --exit; "
                         "everything it shows is also available from `pto` (pto --help).\n");
    return 1;
  }
  QApplication app(argc, argv);
  nameApplication();
  const StudioCommandLine options;
  QCommandLineParser parser;
  options.describe(parser);
  parser.process(app);

  using View = pto::studio::MainWindow::View;
  QString viewName = parser.value(options.view);
  View view = View::Swimlane;
  if (viewName == QStringLiteral("editor")) view = View::Editor;
  else if (viewName == QStringLiteral("graph")) view = View::Graph;
  else if (viewName == QStringLiteral("tuning")) view = View::Tuning;
  else if (viewName == QStringLiteral("summary")) view = View::Summary;
  else if (viewName == QStringLiteral("health")) view = View::Health;
  else if (viewName == QStringLiteral("runs")) view = View::Runs;
  else if (viewName == QStringLiteral("advice")) view = View::Advice;
  else if (viewName == QStringLiteral("memory")) view = View::Memory;
  else if (viewName == QStringLiteral("inside")) view = View::InsideTask;
  else if (viewName != QStringLiteral("swimlane")) {
    std::fprintf(stderr, "pto-studio: --view must be swimlane, graph, editor, summary, health, tuning, runs, advice, memory or inside, not '%s'\n",
                 qPrintable(viewName));
    return 2;
  }
  auto level = pto::graphLevelNamed(parser.value(options.level).toStdString());
  if (!level) {
    std::fprintf(stderr, "pto-studio: --level must be tensor, tile, block or exec, not '%s'\n", qPrintable(parser.value(options.level)));
    return 2;
  }
  QString theme = parser.value(options.theme);
  if (theme == QStringLiteral("dark") || theme == QStringLiteral("light")) {
    QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
    QApplication::setPalette(theme == QStringLiteral("dark") ? pto::widgets::darkPalette() : QApplication::style()->standardPalette());
  } else if (theme != QStringLiteral("system")) {
    std::fprintf(stderr, "pto-studio: --theme must be system, light or dark, not '%s'\n", qPrintable(theme));
    return 2;
  }

  QString compareRun = parser.value(options.compare);
  bool compareRunIsId = false;
  qint64 compareRunId = compareRun.toLongLong(&compareRunIsId);
  if (!compareRun.isEmpty() && compareRun != QStringLiteral("previous") && (!compareRunIsId || compareRunId <= 0)) {
    std::fprintf(stderr, "pto-studio: --compare-run must be a run id (pto runs lists them) or 'previous', not '%s'\n",
                 qPrintable(compareRun));
    return 2;
  }

  pto::studio::MainWindow window;
  if (parser.isSet(options.size)) {
    QStringList parts = parser.value(options.size).split('x');
    if (parts.size() == 2) window.resize(parts[0].toInt(), parts[1].toInt());
  }
  window.show();
  bool ok = true;
  QObject::connect(&window, &pto::studio::MainWindow::openFailed, &app, [&ok] { ok = false; });
  for (const QString& path : parser.positionalArguments()) ok = window.open(path) && ok;
  // --run asks for a recorded run: the one opening started, or a new one.
  if (parser.isSet(options.run) && !window.projectFile().isEmpty() && !window.recordRunInFlight() && !window.busy())
    window.runProject();
  if (parser.isSet(options.advise) && !window.projectFile().isEmpty()) window.adviceController()->advise();
  // The advisor and the tuner share one job: the tuner follows the advice.
  if (parser.isSet(options.tune) && !window.projectFile().isEmpty()) {
    const int budget = std::max(1, parser.value(options.tune).toInt());
    if (parser.isSet(options.dask)) window.adviceController()->setCluster(parser.value(options.dask));
    auto tune = [&window, budget] { window.adviceController()->tune(pto::TuneStrategy::Grid, budget); };
    if (window.adviceController()->busy())
      QObject::connect(window.adviceController(), &pto::studio::AdviceController::adviceFinished, &window, tune,
                       Qt::SingleShotConnection);
    else
      tune();
  }
  // The comparison once a run has finished and the runs it is among are
  // listed (connected before the screenshot's wait below, so that wait sees
  // the comparison loading).
  if (!compareRun.isEmpty()) {
    auto ranOnce = std::make_shared<bool>(false);
    QObject::connect(&window, &pto::studio::MainWindow::runFinished, &window, [ranOnce](bool) { *ranOnce = true; });
    QObject::connect(&window, &pto::studio::MainWindow::runsLoaded, &window, [&window, &ok, ranOnce, compareRun, compareRunId] {
      if (!*ranOnce) return;
      *ranOnce = false;
      qint64 id = compareRunId;
      if (compareRun == QStringLiteral("previous")) {
        // The newest recorded run before the current one.
        const auto& history = window.runs()->history();
        id = 0;
        bool pastCurrent = false;
        for (const auto& entry : history.runs) {
          if (pastCurrent) {
            id = entry.run.id;
            break;
          }
          pastCurrent = entry.current;
        }
      }
      if (id <= 0 || !window.compareWithRun(id)) {
        std::fprintf(stderr, "pto-studio: --compare-run %s: no such recorded run to compare with\n", qPrintable(compareRun));
        ok = false;
      }
    });
  }
  // The measured trace once the first run has finished.
  if (parser.isSet(options.measured)) {
    QObject::connect(
        &window, &pto::studio::MainWindow::runFinished, &window,
        [&window, &ok, file = parser.value(options.measured)](bool succeeded) {
          if (succeeded && !window.compareWithMeasured(file)) ok = false;
        },
        Qt::SingleShotConnection);
    QObject::connect(&window, &pto::studio::MainWindow::comparisonShown, &window, [&window, &ok] {
      if (window.measuredPanel() && window.measuredPanel()->model()->rowCount() == 0) ok = false;  // it failed
    });
  }
  // A failed run is a failed check for --exit (scripts use the exit code).
  QObject::connect(&window, &pto::studio::MainWindow::runFinished, &app, [&ok](bool succeeded) { ok = ok && succeeded; });
  if (view == View::Graph) window.showGraphLevel(*level);
  else window.showView(view);

  bool exitAfter = parser.isSet(options.exit);
  QString screenshot = parser.value(options.screenshot);
  // Once the window is idle (a check every quarter second rather than a list
  // of "done" signals, which missed any job, a dock's, that ended last
  // without one, so a screenshot waited forever): let layout and painting
  // settle, then act.
  auto* idleCheck = new QTimer(&window);
  QObject::connect(idleCheck, &QTimer::timeout, &window, [&, idleCheck] {
    if (window.settling()) return;
    idleCheck->stop();
    QTimer::singleShot(300, &window, [&, idleCheck] {
      // Work that began meanwhile (a comparison started by the run's end):
      // wait for the window to be idle again.
      if (window.settling()) return idleCheck->start(250);
      if (!screenshot.isEmpty()) {
        window.repaint();
        if (!window.grab().save(screenshot)) {
          std::fprintf(stderr, "pto-studio: cannot write the screenshot %s\n", qPrintable(screenshot));
          ok = false;
        }
      }
      if (exitAfter) QApplication::exit(ok ? 0 : 1);
    });
  });
  if (!screenshot.isEmpty() || exitAfter) idleCheck->start(250);
  int status = QApplication::exec();
  return status != 0 ? status : (ok ? 0 : 1);
}
