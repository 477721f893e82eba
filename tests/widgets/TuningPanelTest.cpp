// The tuning panel, offscreen: the settings document's undo/redo of every
// kind of edit, the tile settings model under QAbstractItemModelTester, the
// live check text while typing (a fitting and an overflowing shape, bytes
// worked out by hand as in tests/tuning), editing through the view, option
// editors, and writing shapes back into the kernel. Saves a screenshot of
// the panel at 350 px to /tmp/tuning-panel.png.
#include "widgets/ProjectSettingsDocument.h"
#include "widgets/TuningPanel.h"
#include "widgets/models/TileSettingsModel.h"

#include "compiler/frontend/ProjectTrace.h"
#include "core/project/ProjectFile.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTableView>
#include <QTest>
#include <QUndoStack>

using namespace pto;
using namespace pto::widgets;
using Json = nlohmann::ordered_json;

namespace {

// QCOMPARE cannot print nlohmann JSON (and its templates trip over it).
#define JSON_COMPARE(actual, expected)                                                                \
  do {                                                                                                \
    const Json a_ = (actual), e_ = (expected);                                                        \
    QVERIFY2(a_ == e_, (a_.dump() + " != " + e_.dump()).c_str());                                     \
  } while (false)

struct Loaded {
  OperatorProject project;
  std::shared_ptr<const TensorGraph> graph;
};

Loaded load(const char* example) {
  Loaded loaded;
  DiagnosticEngine diags;
  auto project = loadProject(std::string(PTO_SOURCE_DIR "/resources/examples/") + example, diags);
  if (!project) return loaded;
  loaded.project = *project;
  auto graph = traceProject(*project, diags);
  if (graph) loaded.graph = std::make_shared<const TensorGraph>(std::move(*graph));
  return loaded;
}

int rowOf(const TileSettingsModel& model, const QString& key) {
  for (int row = 0; row < model.rowCount(); ++row)
    if (model.data(model.index(row, 0), TileSettingsModel::KeyRole).toString() == key) return row;
  return -1;
}

} // namespace

class TuningPanelTest : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void documentUndoesAndRedoesEveryKindOfEdit() {
    Loaded matmul = load("matmul");
    QVERIFY(matmul.graph);
    ProjectSettingsDocument document;
    QSignalSpy changed(&document, &ProjectSettingsDocument::settingsChanged);
    document.load(matmul.project);
    QVERIFY(!document.isModified());
    QUndoStack* stack = document.undoStack();

    document.setTileShape("vec", "kernel.py:12", Json{64, 128});
    QCOMPARE(stack->text(0), QStringLiteral("Tile shape kernel.py:12 → [64, 128]"));
    document.setTileShape("cube", "gemm", Json::parse(R"({"m": [64, 64], "k": [64, 128], "n": [64, 64]})"));
    QCOMPARE(stack->text(1), QStringLiteral("Tile shape gemm → m 64,64 k 64,128 n 64,64"));
    document.setPassOption("ooo_sched_mode", 0);
    QCOMPARE(stack->text(2), QStringLiteral("Pass option ooo_sched_mode → 0"));
    document.setRuntimeOption("device_sched_mode", 2);
    QCOMPARE(stack->text(3), QStringLiteral("Runtime option device_sched_mode → 2"));
    document.setMachine("950");
    QCOMPARE(stack->text(4), QStringLiteral("Machine → 950"));
    document.setPassOption("ooo_sched_mode", nullptr);
    QCOMPARE(stack->text(5), QStringLiteral("Pass option ooo_sched_mode → default"));
    document.setPassOption("ooo_sched_mode", nullptr);  // no change: no command
    QCOMPARE(stack->count(), 6);
    QVERIFY(document.isModified());

    OperatorProject applied = matmul.project;
    document.applyTo(applied);
    QCOMPARE(applied.machine, std::string("950"));
    JSON_COMPARE(applied.tileSettings["vec"]["kernel.py:12"], (Json{64, 128}));
    JSON_COMPARE(applied.tileSettings["cube"]["gemm"]["k"], (Json{64, 128}));
    QVERIFY(!applied.passOptions.contains("ooo_sched_mode"));
    JSON_COMPARE(applied.runtimeOptions["device_sched_mode"], Json(2));

    // Undo everything: back to the loaded settings, unmodified.
    while (stack->canUndo()) stack->undo();
    QVERIFY(!document.isModified());
    QCOMPARE(document.machine(), QStringLiteral("a2"));
    JSON_COMPARE(document.tileSettings(), matmul.project.tileSettings);
    JSON_COMPARE(document.passOptions(), matmul.project.passOptions);
    JSON_COMPARE(document.runtimeOptions(), matmul.project.runtimeOptions);
    // Redo brings each back.
    stack->redo();
    JSON_COMPARE(document.tileShape("vec", "kernel.py:12"), (Json{64, 128}));
    stack->redo();
    stack->redo();
    JSON_COMPARE(document.passOption("ooo_sched_mode"), Json(0));
    stack->redo();
    stack->redo();
    QCOMPARE(document.machine(), QStringLiteral("950"));
    stack->redo();
    QVERIFY(document.passOption("ooo_sched_mode").is_null());
    document.markSaved();
    QVERIFY(!document.isModified());
    QVERIFY(changed.count() >= 13);
  }

  void tileModelPassesTheModelTesterThroughEdits() {
    Loaded mixed = load("muls_add_matmul_rowsum");
    QVERIFY(mixed.graph);
    ProjectSettingsDocument document;
    document.load(mixed.project);
    TuningPanel panel(&document);
    TileSettingsModel* model = panel.tileModel();
    QAbstractItemModelTester tester(model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    panel.setProject(mixed.project, mixed.graph);
    QVERIFY(model->rowCount() >= 5);  // vec :16, :24, labels, DEFAULT; cube :20, label
    int row = rowOf(*model, "kernel.py:16");
    QVERIFY(row >= 0);
    QCOMPARE(model->data(model->index(row, TileSettingsModel::ShapeColumn)).toString(), QStringLiteral("32, 32 (kernel)"));
    // add(t, b): three 32x32 fp32 tiles = 12 KiB of A2's 192 KiB UB.
    QCOMPARE(model->data(model->index(row, TileSettingsModel::MemoryColumn)).toString(), QStringLiteral("UB 12 KiB / 192 KiB"));
    QCOMPARE(model->data(model->index(row, TileSettingsModel::StatusColumn)).toString(), QStringLiteral("fits"));

    // An edit goes through the document (undoable) and comes back into the model.
    QVERIFY(model->setData(model->index(row, TileSettingsModel::ShapeColumn), QStringLiteral("64, 64")));
    JSON_COMPARE(document.tileShape("vec", "kernel.py:16"), (Json{64, 64}));
    QCOMPARE(model->data(model->index(row, TileSettingsModel::ShapeColumn)).toString(), QStringLiteral("64, 64"));
    QCOMPARE(model->data(model->index(row, TileSettingsModel::MemoryColumn)).toString(), QStringLiteral("UB 48 KiB / 192 KiB"));
    // The compiler would reject a shape of the wrong rank: not taken.
    QVERIFY(!model->setData(model->index(row, TileSettingsModel::ShapeColumn), QStringLiteral("64")));
    JSON_COMPARE(document.tileShape("vec", "kernel.py:16"), (Json{64, 64}));
    // A cube edit; then machine and undo all the way.
    int cubeRow = rowOf(*model, "kernel.py:20");
    QVERIFY(model->setData(model->index(cubeRow, TileSettingsModel::ShapeColumn), QStringLiteral("m 32,64 k 64,64 n 32,32")));
    JSON_COMPARE(document.tileShape("cube", "kernel.py:20")["m"], (Json{32, 64}));
    document.setMachine("tiny");
    QVERIFY(model->setData(model->index(row, TileSettingsModel::ShapeColumn), QString()));  // remove the override
    QVERIFY(document.tileShape("vec", "kernel.py:16").is_null());
    while (document.undoStack()->canUndo()) document.undoStack()->undo();
    QCOMPARE(model->data(model->index(row, TileSettingsModel::ShapeColumn)).toString(), QStringLiteral("32, 32 (kernel)"));
    // Settings that add a site (a stale key) reset the model; the tester watches.
    document.setTileShape("vec", "kernel.py:99", Json{8, 8});
    QCOMPARE(model->data(model->index(rowOf(*model, "kernel.py:99"), TileSettingsModel::StatusColumn)).toString(),
             QStringLiteral("unused"));
  }

  void liveCheckWhileTyping() {
    Loaded matmul = load("matmul");
    QVERIFY(matmul.graph);
    ProjectSettingsDocument document;
    document.load(matmul.project);
    TuningPanel panel(&document);
    panel.resize(350, 700);
    panel.show();
    panel.setProject(matmul.project, matmul.graph);
    int row = rowOf(*panel.tileModel(), "kernel.py:15");
    QVERIFY(row >= 0);
    bool fits = false;
    // fp16 A 128x64 and B 64x128 (16 KiB each) in L1, L0A, L0B; fp32 C 128x128 = 64 KiB in L0C.
    QCOMPARE(panel.liveCheckText(row, "m 128,128 k 64,256 n 128,256", &fits),
             QStringLiteral("fits: L1 32 KiB / 512 KiB, L0A 16 KiB / 64 KiB, L0B 16 KiB / 64 KiB, L0C 64 KiB / 128 KiB"));
    QVERIFY(fits);
    // kL0 = 512: A 128x512 fp16 = 128 KiB, twice L0A.
    QCOMPARE(panel.liveCheckText(row, "m 128,128 k 512,512 n 128,128", &fits),
             QStringLiteral("does not fit: L1 256 KiB / 512 KiB, L0A 128 KiB / 64 KiB, L0B 128 KiB / 64 KiB, "
                            "L0C 64 KiB / 128 KiB (matmul 'gemm' at kernel.py:17)"));
    QVERIFY(!fits);
    QVERIFY(panel.liveCheckText(row, "m 128", &fits).startsWith(QStringLiteral("expected \"m mL0,mL1")));
    QVERIFY(!fits);

    // Through the view: the editor shows the check under the text as it is typed.
    auto* table = panel.findChild<QTableView*>();
    QModelIndex shape = panel.tileModel()->index(row, TileSettingsModel::ShapeColumn);
    table->setCurrentIndex(shape);
    table->edit(shape);
    QApplication::processEvents();
    auto* edit = table->viewport()->findChild<QLineEdit*>();
    QVERIFY(edit);
    edit->selectAll();
    QTest::keyClicks(edit, "m 128,128 k 512,512 n 128,128");
    QLabel* check = nullptr;
    for (QLabel* label : edit->parentWidget()->findChildren<QLabel*>()) check = label;
    QVERIFY(check);
    auto shown = [check] { return check->text().replace(QChar(0xa0), QLatin1Char(' ')); };  // it wraps only between memories
    QVERIFY(shown().startsWith(QStringLiteral("does not fit: L1 256 KiB")));
    QCOMPARE(check->palette().color(QPalette::WindowText), QColor(0xc6, 0x28, 0x28));
    edit->clear();
    QTest::keyClicks(edit, "m 128,128 k 128,256 n 64,256");
    QVERIFY(shown().startsWith(QStringLiteral("fits: L1 48 KiB / 512 KiB, L0A 32 KiB / 64 KiB, L0B 16 KiB / 64 KiB")));
    QTest::keyClick(edit, Qt::Key_Return);
    QApplication::processEvents();
    JSON_COMPARE(document.tileShape("cube", "kernel.py:15"),
             Json::parse(R"({"m": [128, 128], "k": [128, 256], "n": [64, 256], "enable_split_k": false})"));
  }

  void optionEditorsEditThroughTheDocument() {
    Loaded softmax = load("softmax");
    QVERIFY(softmax.graph);
    ProjectSettingsDocument document;
    document.load(softmax.project);
    TuningPanel panel(&document);
    panel.setProject(softmax.project, softmax.graph);
    auto* mode = qobject_cast<QComboBox*>(panel.optionEditor("ooo_sched_mode"));
    QVERIFY(mode);
    QCOMPARE(mode->currentText(), QStringLiteral("default"));
    mode->setCurrentIndex(1);
    Q_EMIT mode->activated(1);
    JSON_COMPARE(document.passOption("ooo_sched_mode"), Json(0));
    auto* threads = qobject_cast<QSpinBox*>(panel.optionEditor("launch_sched_aicpu_num"));
    QVERIFY(threads);
    QCOMPARE(threads->text(), QStringLiteral("default"));
    threads->setValue(3);
    JSON_COMPARE(document.runtimeOption("launch_sched_aicpu_num"), Json(3));
    auto* merge = qobject_cast<QLineEdit*>(panel.optionEditor("vec_nbuffer_setting"));
    QVERIFY(merge);
    merge->setText(R"({"sofmax": 2})");
    Q_EMIT merge->editingFinished();
    QVERIFY(document.passOption("vec_nbuffer_setting").is_null());  // the compiler would reject it: not taken
    merge->setText(R"({"softmax": 2})");
    Q_EMIT merge->editingFinished();
    JSON_COMPARE(document.passOption("vec_nbuffer_setting"), (Json{{"softmax", 2}}));
    document.undoStack()->undo();
    QCOMPARE(merge->text(), QString());
    document.undoStack()->undo();
    QCOMPARE(threads->text(), QStringLiteral("default"));
  }

  void writesShapesBackIntoTheKernel() {
    Loaded softmax = load("softmax");
    QVERIFY(softmax.graph);
    ProjectSettingsDocument document;
    document.load(softmax.project);
    TuningPanel panel(&document);
    panel.setProject(softmax.project, softmax.graph);
    QString kernel = QStringLiteral("import pypto\n# line 2\n") + QString("\n").repeated(19) +
                     QStringLiteral("    pypto.set_vec_tile_shapes(1, 4, 1, 64)  # rows per tile\n");
    panel.setKernelSourceProvider([kernel] { return kernel; });
    document.setTileShape("vec", "kernel.py:22", Json{1, 8, 1, 32});
    QSignalSpy rewrite(&panel, &TuningPanel::kernelRewriteRequested);
    panel.writeShapesBack();
    QCOMPARE(rewrite.count(), 1);
    QString written = rewrite.at(0).at(0).toString();
    QVERIFY(written.endsWith(QStringLiteral("    pypto.set_vec_tile_shapes(1, 8, 1, 32)  # rows per tile\n")));
    QCOMPARE(written.count(QLatin1Char('\n')), kernel.count(QLatin1Char('\n')));
    QCOMPARE(rewrite.at(0).at(1).toString(), QStringLiteral("kernel.py:22 → pypto.set_vec_tile_shapes(1, 8, 1, 32)  # rows per tile"));
    // The override is gone, in one undo step.
    QVERIFY(document.tileShape("vec", "kernel.py:22").is_null());
    QCOMPARE(document.undoStack()->undoText(), QStringLiteral("Write tile shapes back into kernel"));
    document.undoStack()->undo();
    JSON_COMPARE(document.tileShape("vec", "kernel.py:22"), (Json{1, 8, 1, 32}));
  }

  void screenshot() {
    Loaded mixed = load("muls_add_matmul_rowsum");
    QVERIFY(mixed.graph);
    ProjectSettingsDocument document;
    OperatorProject project = mixed.project;
    project.passOptions = {{"vec_nbuffer_setting", {{"DEFAULT", 2}}}};
    document.load(project);
    document.setTileShape("vec", "scale_add", Json{64, 64});
    TuningPanel panel(&document);
    panel.resize(350, 900);
    panel.setProject(project, mixed.graph);
    panel.show();
    auto* table = panel.findChild<QTableView*>();
    table->setCurrentIndex(panel.tileModel()->index(rowOf(*panel.tileModel(), "kernel.py:16"), 0));
    QApplication::processEvents();
    QVERIFY(panel.grab().save(QStringLiteral("/tmp/tuning-panel.png")));
    // And with the shape editor open on an overflowing shape.
    QModelIndex shape = panel.tileModel()->index(rowOf(*panel.tileModel(), "kernel.py:20"), TileSettingsModel::ShapeColumn);
    table->setCurrentIndex(shape);
    table->edit(shape);
    QApplication::processEvents();
    auto* edit = table->viewport()->findChild<QLineEdit*>();
    QVERIFY(edit);
    edit->setText(QStringLiteral("m 64,64 k 64,64 n 32,32 split_k"));
    QApplication::processEvents();
    QVERIFY(panel.grab(QRect(0, 0, 350, 360)).save(QStringLiteral("/tmp/tuning-panel-editing.png")));
  }
};

QTEST_MAIN(TuningPanelTest)
#include "TuningPanelTest.moc"
