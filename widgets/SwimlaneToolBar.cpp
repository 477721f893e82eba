// The swimlane's toolbar.
#include "widgets/SwimlaneToolBar.h"

#include "widgets/SwimlaneView.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>

#include <algorithm>

namespace pto::widgets {
namespace {

// The colour box's entries, in order.
constexpr SwimlaneColorMode kColorModes[] = {SwimlaneColorMode::Label, SwimlaneColorMode::Subgraph,
                                             SwimlaneColorMode::Bound, SwimlaneColorMode::Error};
constexpr int kErrorColours = 3;

} // namespace

SwimlaneToolBar::SwimlaneToolBar(SwimlaneView* view, QAction* criticalPath, QWidget* parent)
    : QToolBar(tr("Swimlane"), parent), m_view(view) {
  setObjectName(QStringLiteral("SwimlaneToolBar"));
  setMovable(false);
  addAction(tr("Fit"), m_view, &SwimlaneView::fit)->setToolTip(tr("Show the whole trace (F)"));
  addSeparator();
  addWidget(new QLabel(tr(" Colour by "), this));
  m_colorMode = new QComboBox(this);
  m_colorMode->addItems({tr("semantic label"), tr("subgraph"), tr("bound type"), tr("error vs measured")});
  m_colorMode->setToolTip(tr("Bound type: the pipe group busiest inside each task (memory-in, cube, vector, memory-out, "
                             "scalar). Error vs measured: each task's measured against simulated duration, once a "
                             "measured trace is compared (Run > Compare with a measured trace)"));
  connect(m_colorMode, &QComboBox::currentIndexChanged, this,
          [this](int index) { m_view->setColorMode(kColorModes[std::clamp(index, 0, kErrorColours)]); });
  addWidget(m_colorMode);
  addSeparator();
  auto* idleBox = new QCheckBox(tr("Hide idle lanes"), this);
  idleBox->setToolTip(tr("Collapse lanes that ran no task into one row (I)"));
  idleBox->setChecked(m_view->collapsesIdleLanes());
  connect(idleBox, &QCheckBox::toggled, m_view, &SwimlaneView::setCollapseIdleLanes);
  connect(m_view, &SwimlaneView::idleLanesCollapsedChanged, idleBox, &QCheckBox::setChecked);
  addWidget(idleBox);
  addSeparator();
  addWidget(new QLabel(tr(" Arrow depth "), this));
  auto* depth = new QSpinBox(this);
  depth->setRange(0, 99);
  depth->setValue(1);
  depth->setSpecialValueText(tr("all"));
  depth->setToolTip(tr("How many dependency steps to draw from the selected task (all = the whole cone)"));
  connect(depth, &QSpinBox::valueChanged, m_view, &SwimlaneView::setDependencyDepth);
  addWidget(depth);
  addSeparator();
  auto* criticalBox = new QCheckBox(tr("Critical path"), this);
  connect(criticalBox, &QCheckBox::toggled, criticalPath, &QAction::setChecked);
  connect(criticalPath, &QAction::toggled, criticalBox, &QCheckBox::setChecked);
  addWidget(criticalBox);
  addSeparator();
  m_search = new QLineEdit(this);
  m_search->setPlaceholderText(tr("Find: label, task id or #index  (Enter: next)"));
  m_search->setClearButtonEnabled(true);
  m_search->setMaximumWidth(320);
  connect(m_search, &QLineEdit::returnPressed, this, [this] {
    if (m_view->state().highlighted.empty()) m_view->search(m_search->text());
    else m_view->nextMatch();
  });
  connect(m_search, &QLineEdit::textChanged, this, [this](const QString& text) {
    if (text.isEmpty()) m_view->search(QString());
  });
  addWidget(m_search);
}

void SwimlaneToolBar::showErrorColours(bool on) {
  if (on) m_colorMode->setCurrentIndex(kErrorColours);
  else if (m_colorMode->currentIndex() == kErrorColours) m_colorMode->setCurrentIndex(0);
}

void SwimlaneToolBar::focusSearch() {
  m_search->setFocus();
  m_search->selectAll();
}

} // namespace pto::widgets
