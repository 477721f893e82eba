// The Advice dock: the advisor's suggestions as cards, the tuner's Pareto front as a table and a plot.
#include "widgets/AdvicePanel.h"

#include "widgets/BoldRowDelegate.h"
#include "widgets/PlotStyle.h"
#include "widgets/QCustomPlot.h"
#include "widgets/Theme.h"
#include "widgets/models/TunePointsModel.h"

#include <QComboBox>
#include <QEvent>
#include <QFrame>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPainter>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <map>

namespace pto::widgets {
namespace {

QColor accentColour(const QPalette& palette) { return isDark(palette) ? QColor(255, 167, 38) : QColor(230, 115, 0); }
QColor mutedColour(const QPalette& palette) {
  QColor text = palette.color(QPalette::Text);
  QColor base = palette.color(QPalette::Base);
  return QColor((text.red() + base.red()) / 2, (text.green() + base.green()) / 2, (text.blue() + base.blue()) / 2);
}

QString microseconds(double us) { return QString::number(us, 'f', 2) + QStringLiteral(" \u00B5s"); }
// A change against a baseline, signed with a real minus: "−63.4 %".
QString change(double us, double baselineUs) {
  if (baselineUs <= 0) return QString();
  const double percent = 100.0 * (us / baselineUs - 1.0);
  return QStringLiteral("%1%2 %").arg(percent <= 0 ? QStringLiteral("\u2212") : QStringLiteral("+")).arg(std::abs(percent), 0, 'f', 1);
}
QString span(const QString& text, const QColor& colour, bool bold = false) {
  return QStringLiteral("<span style='color:%1;%2'>%3</span>")
      .arg(colour.name(), bold ? QStringLiteral("font-weight:600") : QString(), text);
}

// The strategies the combo offers, in its order.
constexpr TuneStrategy kStrategies[] = {TuneStrategy::Grid, TuneStrategy::Random, TuneStrategy::Evolve};
QString strategyName(TuneStrategy strategy) {
  switch (strategy) {
  case TuneStrategy::Grid: return QStringLiteral("grid");
  case TuneStrategy::Random: return QStringLiteral("random");
  case TuneStrategy::Evolve: return QStringLiteral("evolve");
  }
  return QString();
}

} // namespace

// Baseline against predicted (and, once run, obtained) as two bars on one
// scale: the eye reads the gain before the numbers. Outside the anonymous
// namespace, as AdvicePanel::Card holds one.
class GainBar : public QWidget {
public:
  explicit GainBar(QWidget* parent) : QWidget(parent) { setFixedHeight(18); setMinimumWidth(120); }
  void setTimes(double baselineUs, double predictedUs) {
    m_baselineUs = baselineUs;
    m_predictedUs = predictedUs;
    update();
  }
  void setObtained(std::optional<double> obtainedUs) {
    m_obtainedUs = obtainedUs;
    update();
  }

protected:
  void paintEvent(QPaintEvent*) override {
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing);
    const double scale = std::max({m_baselineUs, m_predictedUs, m_obtainedUs.value_or(0.0), 1e-9});
    const QRectF area = QRectF(rect()).adjusted(0.5, 1.5, -0.5, -1.5);
    const double barHeight = (area.height() - 2) / 2;
    auto bar = [&](double y, double us, const QColor& colour) {
      QRectF box(area.left(), y, area.width() * us / scale, barHeight);
      painter.setPen(Qt::NoPen);
      painter.setBrush(colour);
      painter.drawRoundedRect(box, 2, 2);
    };
    const QPalette& colours = palette();
    bar(area.top(), m_baselineUs, mutedColour(colours));
    bar(area.top() + barHeight + 2, m_predictedUs,
        m_predictedUs <= m_baselineUs ? goodColour(colours) : badColour(colours));
    if (m_obtainedUs) {
      // The obtained makespan as a tick across the predicted bar.
      const double x = area.left() + area.width() * *m_obtainedUs / scale;
      painter.setPen(QPen(colours.color(QPalette::Text), 2));
      painter.drawLine(QPointF(x, area.top() + barHeight - 1), QPointF(x, area.bottom()));
    }
  }

private:
  double m_baselineUs = 0.0, m_predictedUs = 0.0;
  std::optional<double> m_obtainedUs;
};

namespace {

// A page of the panel (suggestions, tuner): its layout, headed by a headline
// in rich text the user can select and copy.
QVBoxLayout* headedPage(QWidget* page, QLabel*& headline) {
  auto* layout = new QVBoxLayout(page);
  layout->setContentsMargins(0, 6, 0, 0);
  headline = new QLabel(page);
  headline->setWordWrap(true);
  headline->setTextFormat(Qt::RichText);
  headline->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(headline);
  return layout;
}

} // namespace

// One suggestion's card.
struct AdvicePanel::Card {
  enum class State { Proposed, Running, Obtained, RunFailed };
  QFrame* frame = nullptr;
  QLabel* title = nullptr;
  QLabel* rule = nullptr;
  QLabel* times = nullptr;
  GainBar* bar = nullptr;
  QLabel* evidence = nullptr;
  QLabel* tried = nullptr;
  QLabel* outcome = nullptr;
  QPushButton* apply = nullptr;
  State state = State::Proposed;
  double obtainedUs = 0.0;
  QString outcomeText;  // plain, for tests and the tooltip
};

AdvicePanel::AdvicePanel(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->setSpacing(4);

  // The toolbar: both tools, their one knob each, and Cancel.
  auto* bar = new QHBoxLayout;
  bar->setSpacing(6);
  m_adviseButton = new QPushButton(tr("Advise"), this);
  m_adviseButton->setToolTip(tr("Find changes to the settings that make this kernel faster; each is simulated before "
                                "it is proposed (Run > Advise, Ctrl+Shift+A)"));
  m_adviseButton->setDefault(true);
  connect(m_adviseButton, &QPushButton::clicked, this, &AdvicePanel::adviseRequested);
  bar->addWidget(m_adviseButton);
  auto* separator = new QFrame(this);
  separator->setFrameShape(QFrame::VLine);
  separator->setFrameShadow(QFrame::Sunken);
  bar->addWidget(separator);
  m_tuneButton = new QPushButton(tr("Tune"), this);
  m_tuneButton->setToolTip(tr("Search the tuning space (the project's tune.space, else the merge counts of the busy "
                              "labels and the scheduling policy) by simulating each point (Run > Tune, Ctrl+Shift+T)"));
  connect(m_tuneButton, &QPushButton::clicked, this, &AdvicePanel::requestTune);
  bar->addWidget(m_tuneButton);
  m_budget = new QSpinBox(this);
  m_budget->setRange(1, 100000);
  m_budget->setValue(64);
  m_budget->setSuffix(tr(" points"));
  m_budget->setToolTip(tr("Points to simulate at most (pruned points do not count)"));
  bar->addWidget(m_budget);
  m_strategy = new QComboBox(this);
  for (TuneStrategy strategy : kStrategies) m_strategy->addItem(strategyName(strategy));
  m_strategy->setToolTip(tr("grid: every point in order; random: a seeded sample; evolve: the fittest points' neighbours"));
  bar->addWidget(m_strategy);
  m_cluster = new QLineEdit(this);
  m_cluster->setPlaceholderText(tr("on this machine"));
  m_cluster->setClearButtonEnabled(true);
  m_cluster->setMinimumWidth(m_cluster->fontMetrics().horizontalAdvance(QStringLiteral("tcp://10.0.0.5:8786")) + 24);
  m_cluster->setToolTip(tr("Where the points are simulated: empty for this machine's threads, or a Dask scheduler's "
                           "address (tcp://HOST:PORT) to simulate them on its workers, each running pto on the "
                           "project folder at this machine's path (pto tune --dask)"));
  connect(m_cluster, &QLineEdit::returnPressed, this, &AdvicePanel::requestTune);
  bar->addWidget(m_cluster);
  bar->addStretch(1);
  m_cancelButton = new QToolButton(this);
  m_cancelButton->setText(tr("Cancel"));
  m_cancelButton->setToolTip(tr("Stop advising or tuning; nothing is applied"));
  m_cancelButton->setVisible(false);
  connect(m_cancelButton, &QToolButton::clicked, this, &AdvicePanel::cancelRequested);
  bar->addWidget(m_cancelButton);
  layout->addLayout(bar);

  auto* progressRow = new QHBoxLayout;
  m_progress = new QProgressBar(this);
  m_progress->setMaximumHeight(6);
  m_progress->setTextVisible(false);
  m_progress->setVisible(false);
  m_status = new QLabel(this);
  m_status->setObjectName(QStringLiteral("adviceStatus"));
  m_status->setWordWrap(true);
  m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
  progressRow->addWidget(m_status, 1);
  layout->addLayout(progressRow);
  layout->addWidget(m_progress);

  m_tabs = new QTabWidget(this);
  m_tabs->setDocumentMode(true);
  m_tabs->addTab(createSuggestionsPage(), tr("Suggestions"));
  m_tabs->addTab(createTunerPage(), tr("Tuner"));
  layout->addWidget(m_tabs, 1);
  setIdle();
  updateButtons();
}

AdvicePanel::~AdvicePanel() = default;

QWidget* AdvicePanel::createSuggestionsPage() {
  auto* page = new QWidget(this);
  QVBoxLayout* layout = headedPage(page, m_adviceHeadline);
  m_staleNote = new QLabel(page);
  m_staleNote->setWordWrap(true);
  m_staleNote->setVisible(false);
  layout->addWidget(m_staleNote);
  auto* scroll = new QScrollArea(page);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  auto* cards = new QWidget(scroll);
  m_cardsLayout = new QVBoxLayout(cards);
  m_cardsLayout->setContentsMargins(0, 0, 2, 0);
  m_cardsLayout->setSpacing(8);
  m_cardsHint = new QLabel(cards);
  m_cardsHint->setWordWrap(true);
  m_cardsHint->setVisible(false);
  m_cardsLayout->addWidget(m_cardsHint);
  m_cardsLayout->addStretch(1);
  scroll->setWidget(cards);
  layout->addWidget(scroll, 1);
  return page;
}

QWidget* AdvicePanel::createTunerPage() {
  auto* page = new QWidget(this);
  QVBoxLayout* layout = headedPage(page, m_tuneHeadline);

  auto* splitter = new QSplitter(Qt::Vertical, page);
  m_model = new TunePointsModel(this);
  m_table = new QTableView(splitter);
  m_table->setModel(m_model);
  m_table->setItemDelegate(new BoldRowDelegate(TunePointsModel::IsBestRole, m_table));  // the fastest point
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->setSelectionMode(QAbstractItemView::SingleSelection);
  m_table->setAlternatingRowColors(true);
  m_table->setWordWrap(false);  // long settings elide; the tooltip has them whole
  m_table->horizontalHeader()->setStretchLastSection(true);
  m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  m_table->horizontalHeader()->setSectionResizeMode(TunePointsModel::SettingsColumn, QHeaderView::Stretch);
  m_table->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  m_table->setToolTip(tr("The Pareto front: no other point is both faster and less busy. Double-click a row to apply it."));
  connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this] { onTableSelectionChanged(); });
  connect(m_table, &QTableView::doubleClicked, this, [this](const QModelIndex& index) {
    const int point = m_model->pointAt(index.row());
    if (point >= 0 && !m_busy) Q_EMIT applyTunePointRequested(point);
  });

  m_plot = new QCustomPlot(splitter);
  m_plot->setMinimumHeight(300);  // the picture of the sweep: it gets the room, the front has few rows
  m_plot->xAxis->setLabel(tr("busy core time (\u00B5s)"));
  m_plot->yAxis->setLabel(tr("makespan (\u00B5s)"));
  m_plot->legend->setVisible(true);
  m_plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
  m_plot->setToolTip(tr("Each simulated point; the Pareto front joined, the fastest point starred. Click a point on the "
                        "front to select its row."));
  connect(m_plot, &QCustomPlot::plottableClick, this, [this](QCPAbstractPlottable* plottable, int dataIndex, QMouseEvent*) {
    if (!m_tune || plottable != m_plot->graph(1)) return;  // graph 1: the front, in busy order
    std::vector<int> front = m_tune->pareto;
    std::sort(front.begin(), front.end(), [&](int a, int b) {
      return m_tune->points[static_cast<std::size_t>(a)].busyUs < m_tune->points[static_cast<std::size_t>(b)].busyUs;
    });
    if (dataIndex >= 0 && static_cast<std::size_t>(dataIndex) < front.size()) selectTunePoint(front[static_cast<std::size_t>(dataIndex)]);
  });
  splitter->addWidget(m_table);
  splitter->addWidget(m_plot);
  splitter->setStretchFactor(0, 1);
  splitter->setStretchFactor(1, 4);
  layout->addWidget(splitter, 1);

  auto* buttons = new QHBoxLayout;
  m_tuneOutcome = new QLabel(page);
  m_tuneOutcome->setTextFormat(Qt::RichText);
  m_tuneOutcome->setWordWrap(true);
  buttons->addWidget(m_tuneOutcome, 1);
  m_applySelected = new QPushButton(tr("Apply selected"), page);
  m_applySelected->setToolTip(tr("Set the selected point's values (one undoable edit; the project reruns)"));
  connect(m_applySelected, &QPushButton::clicked, this, [this] {
    if (selectedTunePoint() >= 0) Q_EMIT applyTunePointRequested(selectedTunePoint());
  });
  buttons->addWidget(m_applySelected);
  m_applyBest = new QPushButton(tr("Apply best"), page);
  m_applyBest->setToolTip(tr("Set the fastest point's values (one undoable edit; the project reruns)"));
  connect(m_applyBest, &QPushButton::clicked, this, [this] {
    if (m_tune && m_tune->best >= 0) Q_EMIT applyTunePointRequested(m_tune->best);
  });
  buttons->addWidget(m_applyBest);
  layout->addLayout(buttons);
  replot();
  m_tuneHeadline->setText(tr("Tune searches the settings by simulating each point. Set a budget and a strategy, then "
                             "press Tune."));
  return page;
}

void AdvicePanel::setProjectOpen(bool open) {
  m_projectOpen = open;
  if (open && !m_advice)
    m_adviceHeadline->setText(span(tr("Advise looks at a run's symptoms, simulates the changes to the settings that "
                                      "would treat them, and lists those that make the kernel faster (Ctrl+Shift+A)."),
                                   mutedColour(palette())));
  if (!open) {
    m_advice.reset();
    rebuildCards();
    m_adviceHeadline->setText(tr("Open a project to advise on it."));
    m_model->clear();
    m_tune.reset();
    replot();
  }
  updateButtons();
}

// ---- Suggestions ----------------------------------------------------------

void AdvicePanel::setAdvice(const Advice& advice, const QString& projectName) {
  m_advice = advice;
  m_projectName = projectName;
  setAdviceStale(false);
  const QPalette& colours = palette();
  QString headline = tr("<b>%1</b> &nbsp;%2, <b>%3-bound</b> &nbsp;&middot;&nbsp; %4 simulated in %5 s")
                         .arg(projectName.toHtmlEscaped(), microseconds(advice.baselineUs),
                              QString::fromStdString(advice.bound).toHtmlEscaped(),
                              advice.variantsSimulated == 1 ? tr("1 variant") : tr("%1 variants").arg(advice.variantsSimulated))
                         .arg(advice.adviseMs / 1000.0, 0, 'f', 1);
  if (advice.suggestions.empty())
    headline += QStringLiteral("<br>") + span(tr("No rule found a change that makes this kernel faster."), mutedColour(colours));
  else if (advice.suggestions.size() > 1)
    headline += QStringLiteral("<br>") + span(tr("%1 suggestions, the largest gain first; each was measured alone on "
                                                 "the settings as they are.")
                                                  .arg(advice.suggestions.size()),
                                              mutedColour(colours));
  m_adviceHeadline->setText(headline);
  rebuildCards();
  showSuggestions();
}

void AdvicePanel::setAdviceFailed(const QString& message) {
  m_advice.reset();
  rebuildCards();
  m_adviceHeadline->setText(span(tr("The advisor could not run: %1").arg(message.toHtmlEscaped()), badColour(palette())));
  showSuggestions();
}

void AdvicePanel::setAdviceStale(bool stale) {
  m_staleNote->setVisible(stale && m_advice && !m_advice->suggestions.empty());
  m_staleNote->setText(span(tr("The settings changed since this advice: its baselines and predictions are of the "
                               "earlier settings. Advise again for fresh ones."),
                            accentColour(palette())));
}

void AdvicePanel::rebuildCards() {
  for (auto& card : m_cards) delete card->frame;
  m_cards.clear();
  m_cardsHint->setVisible(false);
  if (!m_advice) return;
  const QPalette& colours = palette();
  int index = 0;
  for (const Suggestion& suggestion : m_advice->suggestions) {
    auto card = std::make_unique<Card>();
    card->frame = new QFrame;
    card->frame->setFrameShape(QFrame::StyledPanel);
    card->frame->setAutoFillBackground(true);
    card->frame->setBackgroundRole(QPalette::Base);
    auto* grid = new QGridLayout(card->frame);
    grid->setContentsMargins(10, 8, 10, 8);
    grid->setHorizontalSpacing(10);
    grid->setVerticalSpacing(4);

    auto* rank = new QLabel(QString::number(index + 1), card->frame);
    rank->setAlignment(Qt::AlignCenter);
    rank->setFixedSize(22, 22);
    rank->setStyleSheet(QStringLiteral("QLabel { background:%1; color:white; border-radius:11px; font-weight:600; }")
                            .arg(accentColour(colours).name()));
    grid->addWidget(rank, 0, 0, Qt::AlignTop);

    card->title = new QLabel(card->frame);
    card->title->setWordWrap(true);
    card->title->setTextFormat(Qt::RichText);
    card->title->setText(QStringLiteral("<b>%1</b>").arg(QString::fromStdString(suggestion.title).toHtmlEscaped()));
    card->title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    grid->addWidget(card->title, 0, 1);

    card->apply = new QPushButton(tr("Apply"), card->frame);
    if (suggestion.kernelEdit)
      card->apply->setToolTip(tr("Make this change to the kernel in the editor (one undoable edit: Ctrl+Z there) and "
                                 "rerun to check the prediction.\nEdit: line %1: %2 \u2192 %3")
                                  .arg(suggestion.kernelEdit->line)
                                  .arg(QString::fromStdString(suggestion.kernelEdit->before),
                                       QString::fromStdString(suggestion.kernelEdit->after)));
    else
      card->apply->setToolTip(tr("Make this change to the settings (one undoable edit: Ctrl+Z) and rerun to check the "
                                 "prediction.\nPatch: %1")
                                  .arg(QString::fromStdString(suggestion.patch.dump())));
    connect(card->apply, &QPushButton::clicked, this, [this, index] { Q_EMIT applySuggestionRequested(index); });
    grid->addWidget(card->apply, 0, 2, Qt::AlignTop);

    card->rule = new QLabel(card->frame);
    card->rule->setTextFormat(Qt::RichText);
    card->rule->setText(span(tr("rule %1 &nbsp;&middot;&nbsp; %2")
                                 .arg(QString::fromStdString(suggestion.rule).toHtmlEscaped(),
                                      QString::fromStdString(suggestion.id).toHtmlEscaped()),
                             mutedColour(colours)));
    grid->addWidget(card->rule, 1, 1, 1, 2);

    auto* timesRow = new QHBoxLayout;
    card->times = new QLabel(card->frame);
    card->times->setTextFormat(Qt::RichText);
    const QColor verdict = suggestion.predictedUs <= suggestion.baselineUs ? goodColour(colours) : badColour(colours);
    card->times->setText(QStringLiteral("%1 &rarr; %2 &nbsp;%3")
                             .arg(microseconds(suggestion.baselineUs), span(microseconds(suggestion.predictedUs), verdict, true),
                                  span(change(suggestion.predictedUs, suggestion.baselineUs), verdict, true)));
    card->times->setToolTip(tr("The makespan now, and predicted: the patched project compiled and simulated"));
    timesRow->addWidget(card->times);
    card->bar = new GainBar(card->frame);
    card->bar->setTimes(suggestion.baselineUs, suggestion.predictedUs);
    card->bar->setToolTip(tr("Top: the makespan now; below: predicted (the tick: obtained, once applied)"));
    timesRow->addWidget(card->bar, 1);
    grid->addLayout(timesRow, 2, 1, 1, 2);

    card->evidence = new QLabel(card->frame);
    card->evidence->setWordWrap(true);
    card->evidence->setTextFormat(Qt::RichText);
    card->evidence->setTextInteractionFlags(Qt::TextSelectableByMouse);
    card->evidence->setText(tr("<i>Why:</i> %1").arg(QString::fromStdString(suggestion.evidence).toHtmlEscaped()));
    grid->addWidget(card->evidence, 3, 1, 1, 2);

    if (!suggestion.confidence.empty()) {
      auto* confidence = new QLabel(card->frame);
      confidence->setWordWrap(true);
      confidence->setTextFormat(Qt::RichText);
      confidence->setTextInteractionFlags(Qt::TextSelectableByMouse);
      confidence->setText(span(tr("How sure: %1").arg(QString::fromStdString(suggestion.confidence).toHtmlEscaped()),
                               mutedColour(colours)));
      confidence->setToolTip(tr("The validated kind of change behind this prediction and how close the simulator came "
                                "to the chip on it (pto validate, docs/validation.md)"));
      grid->addWidget(confidence, 4, 1, 1, 2);
    }

    if (!suggestion.tried.empty()) {
      // The values tried, the chosen one bold: how sharp the optimum is.
      QStringList tried;
      for (const auto& [value, us] : suggestion.tried) {
        QString entry = QStringLiteral("%1&nbsp;&rarr;&nbsp;%2").arg(QString::fromStdString(value).toHtmlEscaped(),
                                                                      QString::number(us, 'f', 2));
        tried << (us == suggestion.predictedUs ? QStringLiteral("<b>%1</b>").arg(entry) : entry);
      }
      card->tried = new QLabel(card->frame);
      card->tried->setWordWrap(true);
      card->tried->setTextFormat(Qt::RichText);
      card->tried->setText(span(tr("tried (\u00B5s): %1").arg(tried.join(QStringLiteral(" &middot; "))), mutedColour(colours)));
      grid->addWidget(card->tried, 5, 1, 1, 2);
    }

    card->outcome = new QLabel(card->frame);
    card->outcome->setTextFormat(Qt::RichText);
    card->outcome->setVisible(false);
    grid->addWidget(card->outcome, 6, 1, 1, 2);
    grid->setColumnStretch(1, 1);

    m_cardsLayout->insertWidget(m_cardsLayout->count() - 2, card->frame);  // above the hint and the stretch
    m_cards.push_back(std::move(card));
    ++index;
  }
  m_cardsHint->setText(span(tr("Apply makes the change one undoable edit, of the settings or, for a loop barrier, of "
                               "the kernel in the editor (Ctrl+Z takes it back), and reruns the project; the card then "
                               "shows the predicted makespan against the one obtained."),
                            mutedColour(colours)));
  m_cardsHint->setVisible(!m_cards.empty());
  updateButtons();
}

void AdvicePanel::setSuggestionApplied(int index) {
  if (index < 0 || static_cast<std::size_t>(index) >= m_cards.size()) return;
  m_cards[static_cast<std::size_t>(index)]->state = Card::State::Running;
  updateCardOutcome(index);
}

void AdvicePanel::setSuggestionObtained(int index, double obtainedUs) {
  if (index < 0 || static_cast<std::size_t>(index) >= m_cards.size()) return;
  Card& card = *m_cards[static_cast<std::size_t>(index)];
  card.state = Card::State::Obtained;
  card.obtainedUs = obtainedUs;
  updateCardOutcome(index);
}

void AdvicePanel::setSuggestionRunFailed(int index) {
  if (index < 0 || static_cast<std::size_t>(index) >= m_cards.size()) return;
  m_cards[static_cast<std::size_t>(index)]->state = Card::State::RunFailed;
  updateCardOutcome(index);
}

void AdvicePanel::updateCardOutcome(int index) {
  Card& card = *m_cards[static_cast<std::size_t>(index)];
  const Suggestion& suggestion = m_advice->suggestions[static_cast<std::size_t>(index)];
  const QPalette& colours = palette();
  QString html;
  switch (card.state) {
  case Card::State::Proposed: card.outcomeText.clear(); break;
  case Card::State::Running:
    card.outcomeText = tr("applied; running to check the prediction…");
    html = span(card.outcomeText, mutedColour(colours));
    break;
  case Card::State::RunFailed:
    card.outcomeText = tr("applied, but the run failed (see Problems)");
    html = span(card.outcomeText, badColour(colours), true);
    break;
  case Card::State::Obtained: {
    card.outcomeText = tr("predicted %1 \u00B7 obtained %2").arg(microseconds(suggestion.predictedUs), microseconds(card.obtainedUs));
    // Within 1 % the prediction held: the simulator is deterministic, so a
    // larger gap means the run saw other settings or another kernel text.
    const bool held = std::abs(card.obtainedUs - suggestion.predictedUs) <= 0.01 * std::max(suggestion.predictedUs, 1e-9);
    html = QStringLiteral("%1 %2 &nbsp;%3")
               .arg(span(held ? QStringLiteral("\u2714") : QStringLiteral("\u26A0"), held ? goodColour(colours) : accentColour(colours), true),
                    span(card.outcomeText, colours.color(QPalette::Text), true),
                    span(tr("(%1 against the makespan before)").arg(change(card.obtainedUs, suggestion.baselineUs)),
                         mutedColour(colours)));
    break;
  }
  }
  card.outcome->setText(html);
  card.outcome->setVisible(!html.isEmpty());
  card.bar->setObtained(card.state == Card::State::Obtained ? std::optional<double>(card.obtainedUs) : std::nullopt);
  card.apply->setText(card.state == Card::State::Proposed ? tr("Apply") : tr("Applied"));
  updateButtons();
}

QString AdvicePanel::suggestionOutcome(int index) const {
  if (index < 0 || static_cast<std::size_t>(index) >= m_cards.size()) return QString();
  return m_cards[static_cast<std::size_t>(index)]->outcomeText;
}

int AdvicePanel::suggestionCount() const { return static_cast<int>(m_cards.size()); }

QPushButton* AdvicePanel::applyButton(int index) const {
  if (index < 0 || static_cast<std::size_t>(index) >= m_cards.size()) return nullptr;
  return m_cards[static_cast<std::size_t>(index)]->apply;
}

// ---- Tuner ----------------------------------------------------------------

void AdvicePanel::setTuneResult(const TuneResult& result) {
  m_tune = std::make_shared<const TuneResult>(result);
  m_tunePartial = false;
  m_appliedPoint = -1;
  setTuneOutcomeText(QString(), QString());
  m_model->setResult(m_tune, m_tune->pareto);
  const QPalette& colours = palette();
  double gridSize = 1.0;
  QStringList dimensions;
  for (const TuneDimension& dimension : result.space.dimensions) {
    gridSize *= static_cast<double>(dimension.values.size());
    dimensions << QStringLiteral("%1 (%2 values)").arg(QString::fromStdString(dimension.path)).arg(dimension.values.size());
  }
  QString headline = tr("<b>%1</b> over %2 dimensions (%3 points, %4 space) &nbsp;&middot;&nbsp; %5 %6 pruned%7 in %8 s%9")
                         .arg(strategyName(result.strategy))
                         .arg(result.space.dimensions.size())
                         .arg(gridSize, 0, 'g', 6)
                         .arg(QString::fromStdString(result.space.origin))
                         .arg(result.cached > 0 ? tr("%1 simulated, %2 from the cache,")
                                                      .arg(result.evaluated - result.cached)
                                                      .arg(result.cached)
                                                : tr("%1 simulated,").arg(result.evaluated))
                         .arg(result.pruned)
                         .arg(result.failed > 0 ? tr(", %1 failed").arg(result.failed) : QString())
                         .arg(result.seconds, 0, 'f', 1)
                         .arg(result.where.empty() ? QString()
                                                   : tr(" on %1").arg(QString::fromStdString(result.where).toHtmlEscaped()));
  if (result.best >= 0) {
    const TunePoint& best = result.points[static_cast<std::size_t>(result.best)];
    headline += QStringLiteral("<br>") +
                tr("fastest %1 %2 against %3 &nbsp;&middot;&nbsp; %4 on the Pareto front")
                    .arg(span(microseconds(best.makespanUs), goodColour(colours), true),
                         span(change(best.makespanUs, result.baselineUs), goodColour(colours), true),
                         microseconds(result.baselineUs))
                    .arg(result.pareto.size());
  } else {
    headline += QStringLiteral("<br>") + span(tr("No point simulated."), mutedColour(colours));
  }
  m_tuneHeadline->setText(headline);
  // Failed points are not in the table: their reasons are in the tooltip.
  std::map<std::string, int> failures;
  for (const TunePoint& point : result.points)
    if (point.status == "failed") ++failures[point.reason];
  for (const auto& [reason, count] : failures)
    dimensions << tr("failed %1: %2").arg(count).arg(QString::fromStdString(reason));
  m_tuneHeadline->setToolTip(dimensions.join(QLatin1Char('\n')));
  if (result.best >= 0) selectTunePoint(result.best);
  replot();
  updateButtons();
}

void AdvicePanel::setTunePointsSoFar(std::shared_ptr<const TuneResult> soFar, int total) {
  if (!soFar) return;
  // The row the user is on stays selected while rows come in.
  const int selected = selectedTunePoint();
  m_tune = std::move(soFar);
  m_tunePartial = true;
  m_model->setResult(m_tune, m_tune->pareto);
  if (selected >= 0) selectTunePoint(selected);
  QString headline = tr("<b>%1</b> under way on %2 &nbsp;&middot;&nbsp; %3 of %4 points so far")
                         .arg(strategyName(m_tune->strategy), QString::fromStdString(m_tune->where).toHtmlEscaped())
                         .arg(m_tune->evaluated)
                         .arg(total);
  if (m_tune->failed > 0) headline += tr(", %1 failed").arg(m_tune->failed);
  if (m_tune->best >= 0)
    headline += QStringLiteral("<br>") +
                tr("fastest so far %1 &nbsp;&middot;&nbsp; %2 on the Pareto front so far")
                    .arg(span(microseconds(m_tune->points[static_cast<std::size_t>(m_tune->best)].makespanUs),
                              goodColour(palette()), true))
                    .arg(m_tune->pareto.size());
  m_tuneHeadline->setText(headline);
  replot();
  updateButtons();
}

QString AdvicePanel::tuneHeadline() const { return m_tuneHeadline->text(); }

void AdvicePanel::setTuneFailed(const QString& message) {
  m_tune.reset();
  m_tunePartial = false;
  m_model->clear();
  replot();
  m_tuneHeadline->setText(span(tr("The tuner could not run: %1").arg(message.toHtmlEscaped()), badColour(palette())));
  showTuner();
  updateButtons();
}

void AdvicePanel::setTunePointApplied(int point) {
  m_appliedPoint = point;
  const QString text = tr("point %1 applied; running to check it…").arg(point);
  setTuneOutcomeText(span(text, mutedColour(palette())), text);
}

void AdvicePanel::setTunePointObtained(int point, double obtainedUs) {
  if (!m_tune || point < 0 || static_cast<std::size_t>(point) >= m_tune->points.size()) return;
  const double predicted = m_tune->points[static_cast<std::size_t>(point)].makespanUs;
  const bool held = std::abs(obtainedUs - predicted) <= 0.01 * std::max(predicted, 1e-9);
  const QPalette& colours = palette();
  const QString text = tr("point %1: predicted %2 \u00B7 obtained %3").arg(point).arg(microseconds(predicted), microseconds(obtainedUs));
  setTuneOutcomeText(QStringLiteral("%1 %2").arg(span(held ? QStringLiteral("\u2714") : QStringLiteral("\u26A0"),
                                                      held ? goodColour(colours) : accentColour(colours), true),
                                                 span(text, colours.color(QPalette::Text), true)),
                     text);
}

void AdvicePanel::setTunePointRunFailed(int point) {
  const QString text = tr("point %1 applied, but the run failed (see Problems)").arg(point);
  setTuneOutcomeText(span(text, badColour(palette()), true), text);
}

void AdvicePanel::setTuneOutcomeText(const QString& html, const QString& text) {
  m_tuneOutcome->setText(html);
  m_tuneOutcomeText = text;
}

int AdvicePanel::selectedTunePoint() const {
  const QModelIndex current = m_table->currentIndex();
  return current.isValid() ? m_model->pointAt(current.row()) : -1;
}

void AdvicePanel::selectTunePoint(int point) {
  const int row = m_model->rowOf(point);
  if (row < 0) return;
  m_table->selectRow(row);
  m_table->setCurrentIndex(m_model->index(row, 0));
}

void AdvicePanel::onTableSelectionChanged() {
  replot();
  updateButtons();
}

void AdvicePanel::replot() {
  m_plot->clearGraphs();
  m_plot->clearItems();
  const QPalette& colours = palette();
  // Follow the theme: the plot paints its own background.
  const QColor text = colours.color(QPalette::Text);
  stylePlot(m_plot, colours);
  QColor legendBackground = colours.color(QPalette::Base);
  legendBackground.setAlpha(210);  // points behind the legend stay visible
  m_plot->legend->setBrush(legendBackground);
  m_plot->legend->setTextColor(text);
  m_plot->legend->setBorderPen(QPen(mutedColour(colours)));

  QCPGraph* evaluated = m_plot->addGraph();
  evaluated->setName(tr("simulated point"));
  evaluated->setLineStyle(QCPGraph::lsNone);
  evaluated->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, mutedColour(colours), 5));
  QCPGraph* front = m_plot->addGraph();
  front->setName(tr("Pareto front"));
  front->setPen(QPen(accentColour(colours), 1.5));
  front->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(accentColour(colours), 1.5), accentColour(colours), 7));
  QCPGraph* best = m_plot->addGraph();
  best->setName(tr("fastest"));
  best->setLineStyle(QCPGraph::lsNone);
  best->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssStar, QPen(goodColour(colours), 2), Qt::NoBrush, 16));
  m_selectedGraph = m_plot->addGraph();
  m_selectedGraph->setName(tr("selected"));
  m_selectedGraph->setLineStyle(QCPGraph::lsNone);
  m_selectedGraph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(text, 2), Qt::NoBrush, 15));
  for (QCPGraph* graph : {evaluated, best, m_selectedGraph}) graph->setSelectable(QCP::stNone);
  front->setSelectable(QCP::stSingleData);

  if (!m_tune || m_tune->best < 0) {
    m_plot->legend->setVisible(false);
    m_plot->xAxis->setRange(0, 1);
    m_plot->yAxis->setRange(0, 1);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
    return;
  }
  m_plot->legend->setVisible(true);
  std::vector<std::pair<double, double>> all;
  for (const TunePoint& point : m_tune->points)
    if (point.status == "ok") all.emplace_back(point.busyUs, point.makespanUs);
  std::sort(all.begin(), all.end());
  for (const auto& [busy, makespan] : all) evaluated->addData(busy, makespan);
  std::vector<int> pareto = m_tune->pareto;
  std::sort(pareto.begin(), pareto.end(), [&](int a, int b) {
    return m_tune->points[static_cast<std::size_t>(a)].busyUs < m_tune->points[static_cast<std::size_t>(b)].busyUs;
  });
  for (int index : pareto) {
    const TunePoint& point = m_tune->points[static_cast<std::size_t>(index)];
    front->addData(point.busyUs, point.makespanUs);
  }
  const TunePoint& fastest = m_tune->points[static_cast<std::size_t>(m_tune->best)];
  best->addData(fastest.busyUs, fastest.makespanUs);
  if (const int selected = selectedTunePoint(); selected >= 0) {
    const TunePoint& point = m_tune->points[static_cast<std::size_t>(selected)];
    m_selectedGraph->addData(point.busyUs, point.makespanUs);
  }
  // The makespan the sweep started from, for scale (not known while a sweep is under way).
  if (m_tune->baselineUs > 0) {
    auto* baseline = new QCPItemStraightLine(m_plot);
    baseline->setPen(QPen(badColour(colours), 1, Qt::DashLine));
    baseline->point1->setCoords(0, m_tune->baselineUs);
    baseline->point2->setCoords(1, m_tune->baselineUs);
    auto* baselineLabel = new QCPItemText(m_plot);
    baselineLabel->setColor(badColour(colours));
    baselineLabel->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
    baselineLabel->position->setTypeX(QCPItemPosition::ptAxisRectRatio);
    baselineLabel->position->setTypeY(QCPItemPosition::ptPlotCoords);
    baselineLabel->position->setCoords(0.01, m_tune->baselineUs);
    baselineLabel->setText(tr("start %1").arg(microseconds(m_tune->baselineUs)));
  }

  evaluated->rescaleAxes();
  double low = m_plot->yAxis->range().lower, high = std::max(m_plot->yAxis->range().upper, m_tune->baselineUs);
  const double pad = std::max((high - low) * 0.08, high * 0.02);
  m_plot->yAxis->setRange(std::max(0.0, low - pad), high + pad);
  QCPRange x = m_plot->xAxis->range();
  const double xPad = std::max(x.size() * 0.06, x.upper * 0.02);
  m_plot->xAxis->setRange(std::max(0.0, x.lower - xPad), x.upper + xPad);
  m_plot->replot(QCustomPlot::rpQueuedReplot);
}

// ---- Busy state -----------------------------------------------------------

void AdvicePanel::setBusy(const QString& what, int done, int total) {
  m_busy = true;
  m_cancelButton->setVisible(true);
  m_progress->setVisible(true);
  m_progress->setRange(0, total > 0 ? total : 0);  // 0..0: busy, no known end
  if (total > 0) m_progress->setValue(std::min(done, total));
  m_status->setText(total > 0 ? tr("%1: %2 of %3 simulated…").arg(what).arg(std::min(done, total)).arg(total)
                    : done > 0 ? tr("%1: %2 simulated…").arg(what).arg(done)
                               : tr("%1…").arg(what));
  updateButtons();
}

void AdvicePanel::setTuneProgress(const QString& project, const TuneProgress& progress) {
  setBusy(tr("Tuning %1").arg(project), progress.done, progress.total);
  const QString best = progress.bestUs > 0 ? tr("best %1 us").arg(progress.bestUs, 0, 'f', 2) : tr("no result yet");
  const QString left = progress.etaSeconds < 0 ? QString() : tr(", about %1 s left").arg(std::lround(progress.etaSeconds));
  m_status->setText(tr("Tuning %1 on %2: %3 of %4 points, %5 simulated/s, %6%7")
                        .arg(project, QString::fromStdString(progress.where))
                        .arg(progress.done)
                        .arg(progress.total)
                        .arg(progress.ratePerSecond, 0, 'f', 1)
                        .arg(best, left));
}

QString AdvicePanel::cluster() const { return m_cluster->text().trimmed(); }
void AdvicePanel::setCluster(const QString& address) {
  m_cluster->setText(address);
  m_cluster->setCursorPosition(0);  // the host, not the port, when it does not fit
}

void AdvicePanel::setIdle(const QString& message) {
  m_busy = false;
  m_cancelButton->setVisible(false);
  m_progress->setVisible(false);
  m_status->setText(message);
  m_status->setVisible(!message.isEmpty());
  updateButtons();
}

void AdvicePanel::updateButtons() {
  const bool ready = m_projectOpen && !m_busy;
  m_adviseButton->setEnabled(ready);
  m_tuneButton->setEnabled(ready);
  m_budget->setEnabled(!m_busy);
  m_strategy->setEnabled(!m_busy);
  m_cluster->setEnabled(!m_busy);
  if (m_busy) m_status->setVisible(true);
  for (const auto& card : m_cards) card->apply->setEnabled(ready && card->state == Card::State::Proposed);
  const bool haveTune = m_tune && !m_tunePartial && m_tune->best >= 0;
  m_applyBest->setEnabled(ready && haveTune);
  m_applySelected->setEnabled(ready && haveTune && selectedTunePoint() >= 0);
}

void AdvicePanel::requestTune() {
  if (!m_busy) Q_EMIT tuneRequested(kStrategies[std::clamp(m_strategy->currentIndex(), 0, 2)], m_budget->value());
}

void AdvicePanel::showSuggestions() { m_tabs->setCurrentIndex(0); }
void AdvicePanel::showTuner() { m_tabs->setCurrentIndex(1); }

void AdvicePanel::changeEvent(QEvent* event) {
  QWidget::changeEvent(event);
  if (event->type() != QEvent::PaletteChange || !m_plot) return;
  // Colours are baked into the cards' rich text and the plot: paint them
  // again, keeping each card's outcome.
  std::vector<std::pair<Card::State, double>> states;
  for (const auto& card : m_cards) states.emplace_back(card->state, card->obtainedUs);
  rebuildCards();
  for (std::size_t i = 0; i < m_cards.size() && i < states.size(); ++i) {
    m_cards[i]->state = states[i].first;
    m_cards[i]->obtainedUs = states[i].second;
    updateCardOutcome(static_cast<int>(i));
  }
  replot();
}

} // namespace pto::widgets
