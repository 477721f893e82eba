// Implementation of TuningPanel.
#include "widgets/TuningPanel.h"

#include "analysis/tuning/OptionCatalog.h"
#include "analysis/tuning/TileShapeWriteBack.h"
#include "npusim/MachineFile.h"

#include <QComboBox>
#include <QFile>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPainter>
#include <QPushButton>
#include <QRegularExpression>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStyledItemDelegate>
#include <QTableView>
#include <QToolButton>
#include <QUndoStack>
#include <QVBoxLayout>

#include <algorithm>
#include <climits>
#include <filesystem>

namespace pto::widgets {

using Json = nlohmann::ordered_json;

namespace {

QColor problemColor() { return QColor(0xc6, 0x28, 0x28); }
QColor okColor() { return QColor(0x2e, 0x7d, 0x32); }
QColor warnColor() { return QColor(0xb2, 0x6a, 0x00); }

QColor fitColor(int fit) {
  switch (fit) {
  case static_cast<int>(TileFit::Fits): return okColor();
  case static_cast<int>(TileFit::MayNotFit): return warnColor();
  case static_cast<int>(TileFit::DoesNotFit):
  case static_cast<int>(TileFit::Invalid): return problemColor();
  default: return {};
  }
}

// The shape editor: a line edit with the live check under it.
class ShapeEditor : public QWidget {
public:
  explicit ShapeEditor(QWidget* parent) : QWidget(parent) {
    setAutoFillBackground(true);
    setBackgroundRole(QPalette::ToolTipBase);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 2, 2);
    layout->setSpacing(1);
    m_edit = new QLineEdit(this);
    m_check = new QLabel(this);
    m_check->setWordWrap(true);
    QFont small = m_check->font();
    small.setPointSizeF(small.pointSizeF() * 0.9);
    m_check->setFont(small);
    layout->addWidget(m_edit);
    layout->addWidget(m_check);
    setFocusProxy(m_edit);
  }
  QLineEdit* edit() const { return m_edit; }
  QLabel* check() const { return m_check; }
  // Places the editor over `cell` with the check's wrapped lines under the
  // text, or above it when the view has no room below (the last rows).
  void place(const QRect& cell) {
    m_cell = cell;
    fitHeight();
  }
  void fitHeight() {
    if (m_cell.isNull()) return;
    const int width = m_cell.width();
    const int height = m_edit->sizeHint().height() + 3 + m_check->heightForWidth(width);
    const int room = parentWidget() ? parentWidget()->height() : height;
    const bool above = m_cell.top() + height > room && m_cell.bottom() + 1 - height >= 0;
    auto* layout = static_cast<QVBoxLayout*>(this->layout());
    if (above != m_above) {
      layout->removeWidget(m_edit);
      layout->removeWidget(m_check);
      layout->addWidget(above ? static_cast<QWidget*>(m_check) : m_edit);
      layout->addWidget(above ? static_cast<QWidget*>(m_edit) : m_check);
      m_above = above;
    }
    setGeometry(m_cell.left(), above ? m_cell.bottom() + 1 - height : m_cell.top(), width, height);
  }

private:
  QLineEdit* m_edit;
  QLabel* m_check;
  QRect m_cell;
  bool m_above = false;
};

class ShapeDelegate : public QStyledItemDelegate {
public:
  ShapeDelegate(const TuningPanel& panel, QObject* parent) : QStyledItemDelegate(parent), m_panel(panel) {}

  QWidget* createEditor(QWidget* parent, const QStyleOptionViewItem&, const QModelIndex& index) const override {
    auto* editor = new ShapeEditor(parent);
    const int row = index.row();
    QObject::connect(editor->edit(), &QLineEdit::textChanged, editor, [this, editor, row](const QString& text) {
      bool fits = false;
      // Wrap between memories, never inside "L0A 16 KiB / 64 KiB".
      QString check = m_panel.liveCheckText(row, text, &fits);
      static const QRegularExpression memory(QStringLiteral("(UB|L1|L0A|L0B|L0C) ([0-9.]+) (B|KiB|MiB) / ([0-9.]+) (B|KiB|MiB)"));
      check.replace(memory, QStringLiteral("\\1\u00a0\\2\u00a0\\3\u00a0/\u00a0\\4\u00a0\\5"));
      editor->check()->setText(check);
      QPalette palette = editor->check()->palette();
      palette.setColor(QPalette::WindowText, fits ? okColor() : problemColor());
      editor->check()->setPalette(palette);
      editor->fitHeight();
    });
    QString placeholder = index.data(TileSettingsModel::SectionRole).toString() == QLatin1String("cube")
                              ? QStringLiteral("m 128,128 k 64,256 n 128,128")
                              : QStringLiteral("e.g. 64, 128");
    editor->edit()->setPlaceholderText(placeholder);
    return editor;
  }
  void setEditorData(QWidget* widget, const QModelIndex& index) const override {
    auto* editor = static_cast<ShapeEditor*>(widget);
    editor->edit()->setText(index.data(Qt::EditRole).toString());
    Q_EMIT editor->edit()->textChanged(editor->edit()->text());
  }
  void setModelData(QWidget* widget, QAbstractItemModel* model, const QModelIndex& index) const override {
    model->setData(index, static_cast<ShapeEditor*>(widget)->edit()->text(), Qt::EditRole);
  }
  void updateEditorGeometry(QWidget* widget, const QStyleOptionViewItem& option, const QModelIndex&) const override {
    // Wider and taller than the cell: the check under the text needs room.
    QRect rect = option.rect;
    QWidget* viewport = widget->parentWidget();
    int width = viewport ? std::max(rect.width(), viewport->width() - rect.left()) : rect.width();
    rect.setWidth(width);
    static_cast<ShapeEditor*>(widget)->place(rect);
  }

private:
  const TuningPanel& m_panel;
};

// Colours the Status column by the row's fit.
class StatusDelegate : public QStyledItemDelegate {
public:
  using QStyledItemDelegate::QStyledItemDelegate;
  void initStyleOption(QStyleOptionViewItem* option, const QModelIndex& index) const override {
    QStyledItemDelegate::initStyleOption(option, index);
    QColor color = fitColor(index.data(TileSettingsModel::FitRole).toInt());
    if (color.isValid()) option->palette.setColor(QPalette::Text, color);
  }
};

QLabel* smallLabel(const QString& text, QWidget* parent) {
  auto* label = new QLabel(text, parent);
  label->setWordWrap(true);
  QFont font = label->font();
  font.setPointSizeF(font.pointSizeF() * 0.9);
  label->setFont(font);
  label->setForegroundRole(QPalette::PlaceholderText);
  return label;
}

} // namespace

// One option's row: its editor and how to show and read a value.
struct TuningPanel::OptionEditor {
  const OptionInfo* info = nullptr;
  QWidget* editor = nullptr;
  QToolButton* reset = nullptr;
  QLabel* error = nullptr;
  std::function<void(const Json&)> show;
};

TuningPanel::TuningPanel(ProjectSettingsDocument* document, QWidget* parent)
    : QWidget(parent), m_document(document), m_tileModel(new TileSettingsModel(this)) {
  auto* outer = new QVBoxLayout(this);
  outer->setContentsMargins(0, 0, 0, 0);
  auto* scroll = new QScrollArea(this);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  outer->addWidget(scroll);
  auto* content = new QWidget(scroll);
  scroll->setWidget(content);
  auto* layout = new QVBoxLayout(content);
  layout->setContentsMargins(4, 4, 4, 4);

  // Machine.
  auto* machineRow = new QHBoxLayout;
  auto* machineLabel = new QLabel(tr("&Machine"), content);
  m_machine = new QComboBox(content);
  for (const std::string& name : availableMachines()) m_machine->addItem(QString::fromStdString(name));
  machineLabel->setBuddy(m_machine);
  m_machine->setToolTip(tr("The chip the kernel is compiled for and simulated on; buffer checks use its capacities"));
  machineRow->addWidget(machineLabel);
  machineRow->addWidget(m_machine, 1);
  layout->addLayout(machineRow);
  connect(m_machine, &QComboBox::activated, this, [this](int) { m_document->setMachine(m_machine->currentText()); });

  // Tile shapes.
  auto* tiles = new QGroupBox(tr("Tile shapes"), content);
  auto* tileLayout = new QVBoxLayout(tiles);
  tileLayout->setContentsMargins(4, 4, 4, 4);
  m_table = new QTableView(tiles);
  m_table->setModel(m_tileModel);
  m_table->setColumnHidden(TileSettingsModel::GovernsColumn, true);
  m_table->setColumnHidden(TileSettingsModel::MemoryColumn, true);
  m_table->verticalHeader()->hide();
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->setSelectionMode(QAbstractItemView::SingleSelection);
  m_table->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed |
                           QAbstractItemView::AnyKeyPressed);
  m_table->setWordWrap(false);
  m_table->setTextElideMode(Qt::ElideRight);
  m_table->horizontalHeader()->setSectionResizeMode(TileSettingsModel::SiteColumn, QHeaderView::ResizeToContents);
  m_table->horizontalHeader()->setSectionResizeMode(TileSettingsModel::ShapeColumn, QHeaderView::Stretch);
  m_table->horizontalHeader()->setSectionResizeMode(TileSettingsModel::StatusColumn, QHeaderView::ResizeToContents);
  m_table->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 8);
  m_table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
  m_table->setItemDelegateForColumn(TileSettingsModel::ShapeColumn, new ShapeDelegate(*this, m_table));
  m_table->setItemDelegateForColumn(TileSettingsModel::StatusColumn, new StatusDelegate(m_table));
  m_table->setToolTip(tr("Double-click a shape to edit it; empty text removes the project's value"));
  tileLayout->addWidget(m_table);
  m_details = smallLabel(tr("Run the project to see its tile sites."), tiles);
  m_details->setTextInteractionFlags(Qt::TextSelectableByMouse);
  tileLayout->addWidget(m_details);
  m_writeBack = new QPushButton(tr("Write shapes back into kernel"), tiles);
  m_writeBack->setToolTip(tr("Rewrite the kernel's set_*_tile_shapes calls with the project's call-site shapes "
                             "and drop those overrides from the project"));
  tileLayout->addWidget(m_writeBack, 0, Qt::AlignLeft);
  layout->addWidget(tiles);
  connect(m_writeBack, &QPushButton::clicked, this, &TuningPanel::writeShapesBack);
  connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &TuningPanel::showDetails);
  connect(m_tileModel, &QAbstractItemModel::dataChanged, this, &TuningPanel::showDetails);
  connect(m_tileModel, &QAbstractItemModel::modelReset, this, &TuningPanel::showDetails);
  connect(m_tileModel, &TileSettingsModel::tileShapeEditRequested, this,
          [this](TileSection section, const QString& key, const std::optional<TileShape>& shape) {
            m_document->setTileShape(section, key, shape);
          });

  m_message = new QLabel(content);
  m_message->setWordWrap(true);
  m_message->hide();
  layout->addWidget(m_message);

  auto* pass = new QGroupBox(tr("Pass options"), content);
  auto* passLayout = new QVBoxLayout(pass);
  passLayout->setContentsMargins(4, 4, 4, 4);
  passLayout->addWidget(buildOptionForm(static_cast<int>(OptionScope::Pass)));
  layout->addWidget(pass);
  auto* runtime = new QGroupBox(tr("Runtime options"), content);
  auto* runtimeLayout = new QVBoxLayout(runtime);
  runtimeLayout->setContentsMargins(4, 4, 4, 4);
  runtimeLayout->addWidget(buildOptionForm(static_cast<int>(OptionScope::Runtime)));
  layout->addWidget(runtime);
  layout->addStretch(1);

  connect(m_document, &ProjectSettingsDocument::settingsChanged, this, &TuningPanel::refreshFromDocument);
  refreshFromDocument();
}

TuningPanel::~TuningPanel() = default;

QWidget* TuningPanel::buildOptionForm(int scopeValue) {
  const auto scope = static_cast<OptionScope>(scopeValue);
  auto* form = new QWidget(this);
  auto* layout = new QVBoxLayout(form);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(2);
  for (const OptionInfo& info : optionCatalog()) {
    if (info.scope != scope) continue;
    auto entry = std::make_unique<OptionEditor>();
    OptionEditor* row = entry.get();
    row->info = &info;
    const QString name = QString::fromStdString(info.name);
    const QString defaultText = QString::fromStdString(info.defaultText);
    // The editor says "default" (with the value when short); the line under it spells it out.
    const QString defaultShort = defaultText.size() <= 5 ? tr("default (%1)").arg(defaultText) : tr("default");
    auto commit = [this, scope, name](const Json& value) {
      if (scope == OptionScope::Pass) m_document->setPassOption(name, value);
      else m_document->setRuntimeOption(name, value);
    };

    auto* top = new QHBoxLayout;
    // Plain weight: the longest names must fit beside the editor in a 350 px dock.
    auto* title = new QLabel(name, form);
    title->setToolTip(tr("Read by %1").arg(QString::fromStdString(info.readBy)));
    top->addWidget(title, 1);

    switch (info.type) {
    case OptionType::Int: {
      auto* spin = new QSpinBox(form);
      const int maximum = static_cast<int>(std::min<std::int64_t>(info.maximum, INT_MAX));
      spin->setRange(static_cast<int>(info.minimum) - 1, maximum);
      spin->setSpecialValueText(defaultShort);
      spin->setKeyboardTracking(false);
      spin->setAccelerated(true);
      const int unset = static_cast<int>(info.minimum) - 1;
      row->show = [spin, unset](const Json& value) {
        spin->setValue(value.is_number_integer() ? static_cast<int>(value.get<std::int64_t>()) : unset);
      };
      connect(spin, &QSpinBox::valueChanged, this, [commit, unset](int value) {
        commit(value == unset ? Json() : Json(value));
      });
      row->editor = spin;
      break;
    }
    case OptionType::Bool:
    case OptionType::Enum: {
      auto* combo = new QComboBox(form);
      combo->addItem(defaultShort, QVariant());
      if (info.type == OptionType::Bool) {
        combo->addItem(QStringLiteral("true"), true);
        combo->addItem(QStringLiteral("false"), false);
      } else {
        for (const OptionChoice& choice : info.choices)
          combo->addItem(QStringLiteral("%1 — %2").arg(choice.value).arg(QString::fromStdString(choice.meaning)),
                         QVariant::fromValue<qlonglong>(choice.value));
      }
      row->show = [combo](const Json& value) {
        int at = 0;
        for (int i = 1; i < combo->count(); ++i) {
          QVariant choiceValue = combo->itemData(i);
          if ((value.is_boolean() && choiceValue.typeId() == QMetaType::Bool && choiceValue.toBool() == value.get<bool>()) ||
              (value.is_number_integer() && choiceValue.typeId() != QMetaType::Bool && choiceValue.toLongLong() == value.get<std::int64_t>()))
            at = i;
        }
        combo->setCurrentIndex(at);
      };
      connect(combo, &QComboBox::activated, this, [commit, combo](int index) {
        QVariant choiceValue = combo->itemData(index);
        if (!choiceValue.isValid()) commit(Json());
        else if (choiceValue.typeId() == QMetaType::Bool) commit(Json(choiceValue.toBool()));
        else commit(Json(choiceValue.toLongLong()));
      });
      row->editor = combo;
      break;
    }
    default: {
      auto* edit = new QLineEdit(form);
      edit->setPlaceholderText(defaultShort);
      if (info.type == OptionType::List)
        edit->setToolTip(tr("Pass names, e.g. [\"OoOSchedule\"]; can be skipped: %1")
                             .arg(QString::fromStdString([&] {
                               std::string names;
                               for (const std::string& value : info.values) names += (names.empty() ? "" : ", ") + value;
                               return names;
                             }())));
      row->show = [edit](const Json& value) { edit->setText(value.is_null() ? QString() : QString::fromStdString(value.dump())); };
      connect(edit, &QLineEdit::editingFinished, this, [this, commit, edit, row, scope, name] {
        const std::string text = edit->text().trimmed().toStdString();
        if (text.empty()) {
          commit(Json());
          return;
        }
        Json value = Json::parse(text, nullptr, false);
        if (value.is_discarded()) {
          // A bare pass name is a natural thing to type for disable_pass.
          if (row->info->type == OptionType::List) value = text;
          else {
            row->error->setText(tr("not JSON: %1").arg(QString::fromStdString(text)));
            row->error->show();
            return;
          }
        }
        std::string problem = validateOption(scope, name.toStdString(), value, m_graph.get());
        if (!problem.empty()) {
          row->error->setText(QString::fromStdString(problem));
          row->error->show();
          return;
        }
        row->error->hide();
        commit(value);
      });
      row->editor = edit;
      break;
    }
    }
    row->editor->setObjectName(name);
    row->editor->setFixedWidth(112);
    row->editor->setToolTip(row->editor->toolTip().isEmpty() ? QString::fromStdString(info.summary) : row->editor->toolTip());
    top->addWidget(row->editor);
    row->reset = new QToolButton(form);
    row->reset->setText(QStringLiteral("↺"));
    row->reset->setToolTip(tr("Reset %1 to its default (%2)").arg(name, defaultText));
    row->reset->setAutoRaise(true);
    row->reset->setFixedWidth(22);
    connect(row->reset, &QToolButton::clicked, this, [commit, row] {
      row->error->hide();
      commit(Json());
    });
    top->addWidget(row->reset);
    layout->addLayout(top);
    layout->addWidget(smallLabel(tr("%1 Default: %2.").arg(QString::fromStdString(info.summary), defaultText), form));
    row->error = new QLabel(form);
    row->error->setWordWrap(true);
    QPalette palette = row->error->palette();
    palette.setColor(QPalette::WindowText, problemColor());
    row->error->setPalette(palette);
    row->error->hide();
    layout->addWidget(row->error);
    layout->addSpacing(6);
    m_optionEditors[(scope == OptionScope::Pass ? QStringLiteral("pass:") : QStringLiteral("runtime:")) + name] =
        std::move(entry);
  }
  return form;
}

void TuningPanel::refreshOptionEditors() {
  for (auto& [key, row] : m_optionEditors) {
    const QString name = QString::fromStdString(row->info->name);
    Json value = row->info->scope == OptionScope::Pass ? m_document->passOption(name) : m_document->runtimeOption(name);
    QSignalBlocker block(row->editor);
    row->show(value);
    row->reset->setEnabled(!value.is_null());
    // A value the project file holds that the compiler would reject.
    std::string problem = value.is_null() ? std::string() : validateOption(row->info->scope, row->info->name, value, m_graph.get());
    row->error->setText(QString::fromStdString(problem));
    row->error->setVisible(!problem.empty());
  }
}

void TuningPanel::setProject(const OperatorProject& project, std::shared_ptr<const TensorGraph> traced) {
  m_project = project;
  m_graph = std::move(traced);
  DiagnosticEngine diags;
  Bindings bindings;
  if (m_graph) bindings = projectDimBindings(project, *m_graph);
  m_tileModel->setKernel(m_graph, std::move(bindings), TargetInfo{});
  refreshFromDocument();
}

void TuningPanel::setProject(const OperatorProject& project, const TensorGraph* traced) {
  setProject(project, traced ? std::make_shared<const TensorGraph>(*traced) : nullptr);
}

void TuningPanel::setKernelSourceProvider(std::function<QString()> provider) { m_sourceProvider = std::move(provider); }

void TuningPanel::refreshTarget() {
  // No project yet: nothing to check against, and nothing to complain about.
  if (m_document->machine().isEmpty()) return;
  DiagnosticEngine diags;
  auto machine = findMachine(m_document->machine().toStdString(), diags, SourceLocation{}, m_project.directory());
  if (!machine) {
    m_machineProblem = true;
    setMessage(tr("Unknown machine '%1'; buffer checks use A2's capacities").arg(m_document->machine()), true);
    m_tileModel->setTarget(TargetInfo{});
    return;
  }
  if (m_machineProblem) setMessage(QString(), false);  // the machine is known again
  m_machineProblem = false;
  m_tileModel->setTarget(machine->targetInfo());
}

void TuningPanel::refreshFromDocument() {
  {
    QSignalBlocker block(m_machine);
    int at = m_machine->findText(m_document->machine());
    if (at < 0 && !m_document->machine().isEmpty()) {
      m_machine->addItem(m_document->machine());
      at = m_machine->count() - 1;
    }
    m_machine->setCurrentIndex(at);
  }
  m_tileModel->setSettings(m_document->tileSettings());
  refreshTarget();
  refreshOptionEditors();
  m_writeBack->setEnabled(!m_tileModel->rowsToWriteBack().empty());
  // Show every site without scrolling, up to eight; more scroll.
  const int rows = std::clamp(m_tileModel->rowCount(), 1, 8);
  m_table->setFixedHeight(m_table->horizontalHeader()->sizeHint().height() +
                          rows * m_table->verticalHeader()->defaultSectionSize() + 2 * m_table->frameWidth());
  showDetails();
}

void TuningPanel::showDetails() {
  if (!m_graph) {
    m_details->setText(tr("Run the project to see its tile sites."));
    return;
  }
  QModelIndex current = m_table->currentIndex();
  if (!current.isValid()) {
    m_details->setText(tr("%1 tile sites. Select one for what it governs; double-click its shape to edit.")
                           .arg(m_tileModel->rowCount()));
    return;
  }
  m_details->setText(m_tileModel->data(m_tileModel->index(current.row(), 0), TileSettingsModel::DetailsRole).toString());
}

QString TuningPanel::liveCheckText(int row, const QString& text, bool* fits) const {
  TileBufferCheck check = m_tileModel->checkText(row, text);
  if (fits) *fits = check.fits();
  if (text.trimmed().isEmpty()) {
    if (fits) *fits = true;
    return tr("empty: the project's value is removed");
  }
  if (check.fit == TileFit::Invalid)
    return QString::fromStdString(check.problems.empty() ? std::string("invalid") : check.problems.front());
  return QString::fromStdString(check.summary());
}

QWidget* TuningPanel::optionEditor(const QString& name) const {
  for (const auto& [key, row] : m_optionEditors)
    if (QString::fromStdString(row->info->name) == name) return row->editor;
  return nullptr;
}

QString TuningPanel::messageText() const { return m_message->isVisible() ? m_message->text() : QString(); }

void TuningPanel::setMessage(const QString& text, bool error) {
  m_message->setText(text);
  QPalette palette = m_message->palette();
  palette.setColor(QPalette::WindowText, error ? problemColor() : palette.color(QPalette::Text));
  m_message->setPalette(palette);
  m_message->setVisible(!text.isEmpty());
}

void TuningPanel::writeShapesBack() {
  QString source;
  if (m_sourceProvider) {
    source = m_sourceProvider();
  } else {
    QFile file(QString::fromStdString(m_project.sourcePath().string()));
    if (!file.open(QIODevice::ReadOnly)) {
      setMessage(tr("Cannot read the kernel %1").arg(file.fileName()), true);
      return;
    }
    source = QString::fromUtf8(file.readAll());
  }
  std::string text = source.toStdString();
  const std::string kernelFile = std::filesystem::path(m_project.source).filename().string();
  QStringList changed, problems;
  std::vector<std::pair<QString, QString>> written;  // section, key
  for (int row : m_tileModel->rowsToWriteBack()) {
    const TileSite& site = m_tileModel->site(row);
    if (std::filesystem::path(site.location.file).filename().string() != kernelFile) {
      problems << tr("%1: not in %2").arg(QString::fromStdString(site.key), QString::fromStdString(kernelFile));
      continue;
    }
    TileWriteBack result = writeTileShapeBack(text, site.location.line, site.section, site.projectValue);
    if (!result.ok) {
      problems << tr("%1: %2").arg(QString::fromStdString(site.key), QString::fromStdString(result.error));
      continue;
    }
    text = result.source;
    changed << QStringLiteral("%1 → %2").arg(QString::fromStdString(site.key), QString::fromStdString(result.newLine).trimmed());
    written.emplace_back(QString::fromUtf8(name(site.section).data()), QString::fromStdString(site.key));
  }
  if (!written.empty()) {
    m_document->undoStack()->beginMacro(tr("Write tile shapes back into kernel"));
    for (const auto& [section, key] : written) m_document->setTileShape(section, key, Json());
    m_document->undoStack()->endMacro();
    Q_EMIT kernelRewriteRequested(QString::fromStdString(text), changed.join(QLatin1Char('\n')));
  }
  if (!problems.isEmpty()) setMessage(tr("Not written back:\n%1").arg(problems.join(QLatin1Char('\n'))), true);
  else if (!written.empty()) setMessage(tr("Written into the kernel:\n%1").arg(changed.join(QLatin1Char('\n'))), false);
  else setMessage(tr("No call-site shapes to write back: the project overrides none."), false);
}

} // namespace pto::widgets
