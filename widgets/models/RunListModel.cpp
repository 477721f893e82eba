// The Runs panel's table of recorded runs.
#include "widgets/models/RunListModel.h"

#include <QDateTime>
#include <QStringList>

namespace pto::widgets {
namespace {

QString qtext(const std::string& text) { return QString::fromStdString(text); }

QString valueText(const std::optional<nlohmann::ordered_json>& value) {
  if (!value) return QObject::tr("(none)");
  QString text = qtext(value->is_string() ? value->get<std::string>() : value->dump());
  if (text.size() > 28) text = text.left(25) + QStringLiteral("…");
  return text;
}

// The steps of an RFC 6901 pointer, unescaped.
QStringList pointerSteps(const std::string& pointer) {
  QStringList steps = qtext(pointer).split(QLatin1Char('/'), Qt::SkipEmptyParts);
  for (QString& step : steps) step.replace(QStringLiteral("~1"), QStringLiteral("/")).replace(QStringLiteral("~0"), QStringLiteral("~"));
  return steps;
}

} // namespace

RunListModel::RunListModel(QObject* parent)
    : TitledTableModel({tr("Run"), tr("Time"), tr("Makespan µs"), tr("Δ µs"), tr("Tasks"), tr("Changed from the run before"),
                        tr("Against the current run")},
                       {QString(), QString(), QString(), tr("Makespan change from the run recorded before it")}, parent) {}

void RunListModel::setHistory(RunHistory history) {
  beginResetModel();
  m_history = std::move(history);
  endResetModel();
}

int RunListModel::rowOf(std::int64_t id) const {
  for (std::size_t row = 0; row < m_history.runs.size(); ++row)
    if (m_history.runs[row].run.id == id) return static_cast<int>(row);
  return -1;
}

std::int64_t RunListModel::idAt(int row) const {
  if (row < 0 || row >= rowCount()) return 0;
  return m_history.runs[static_cast<std::size_t>(row)].run.id;
}

QString RunListModel::differenceText(const SettingDifference& difference, bool full) {
  QStringList steps = pointerSteps(difference.pointer);
  QString where = full ? steps.join(QLatin1Char('.')) : steps.mid(std::max<qsizetype>(0, steps.size() - 2)).join(QLatin1Char('.'));
  return QStringLiteral("%1 %2 → %3").arg(where, valueText(difference.a), valueText(difference.b));
}

QString RunListModel::differencesText(const std::vector<SettingDifference>& differences, int shown) {
  QStringList parts;
  for (std::size_t i = 0; i < differences.size() && static_cast<int>(i) < shown; ++i) parts << differenceText(differences[i]);
  if (static_cast<int>(differences.size()) > shown) parts << tr("+%1 more").arg(static_cast<int>(differences.size()) - shown);
  return parts.join(QStringLiteral("; "));
}

QString RunListModel::localTimeText(const std::string& timeUtc) {
  QDateTime time = QDateTime::fromString(qtext(timeUtc), Qt::ISODate);
  if (!time.isValid()) return qtext(timeUtc);
  time = time.toLocalTime();
  if (time.date() == QDate::currentDate()) return time.toString(QStringLiteral("HH:mm:ss"));
  return time.toString(QStringLiteral("d MMM HH:mm"));
}

QVariant RunListModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const RunHistoryEntry& entry = m_history.runs[static_cast<std::size_t>(index.row())];
  const RunRow& run = entry.run;
  switch (role) {
  case RunIdRole: return QVariant::fromValue<qint64>(run.id);
  case MakespanUsRole: return run.makespanUs;
  case CurrentRole: return entry.current;
  case DeltaUsRole: return entry.deltaUsFromPrevious ? QVariant(*entry.deltaUsFromPrevious) : QVariant();
  case TraceKeptRole: return run.traceBytes > 0;
  case Qt::TextAlignmentRole:
    if (index.column() == MakespanColumn || index.column() == DeltaColumn || index.column() == TasksColumn)
      return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    return {};
  case Qt::DisplayRole:
    switch (index.column()) {
    case RunColumn: return entry.current ? tr("#%1 (current)").arg(run.id) : tr("#%1").arg(run.id);
    case TimeColumn: return localTimeText(run.timeUtc);
    case MakespanColumn: return QString::number(run.makespanUs, 'f', 3);
    case DeltaColumn: {
      if (!entry.deltaUsFromPrevious) return QString();
      double delta = *entry.deltaUsFromPrevious;
      double before = run.makespanUs - delta;
      QString percent = before > 0 ? QStringLiteral(" (%1%2%)").arg(delta >= 0 ? "+" : "").arg(100.0 * delta / before, 0, 'f', 1) : QString();
      return QStringLiteral("%1%2%3").arg(delta >= 0 ? "+" : "").arg(delta, 0, 'f', 3).arg(percent);
    }
    case TasksColumn: return run.tasks;
    case ChangedColumn: {
      if (!entry.deltaUsFromPrevious) return tr("(first run)");
      QString text = differencesText(entry.sincePrevious);
      if (entry.kernelChangedFromPrevious) text = text.isEmpty() ? tr("kernel edited") : tr("kernel edited; %1").arg(text);
      return text.isEmpty() ? tr("same settings") : text;
    }
    case AgainstCurrentColumn:
      if (entry.current) return tr("—");
      if (m_history.currentId == 0) return QString();
      return entry.againstCurrent.empty() ? tr("same settings") : differencesText(entry.againstCurrent);
    default: return {};
    }
  case Qt::ToolTipRole: {
    QStringList lines;
    lines << tr("Run #%1, %2 UTC, %3 on %4").arg(run.id).arg(qtext(run.timeUtc), qtext(run.mode), qtext(run.machine));
    lines << tr("Makespan %1 µs (%2 cycles), %3 tasks").arg(run.makespanUs, 0, 'f', 3).arg(run.makespanCycles).arg(run.tasks);
    if (run.traceBytes <= 0) lines << tr("Its task table was pruned from the ledger: no swimlane to compare.");
    if (entry.deltaUsFromPrevious) {
      lines << tr("Changed from the run before:");
      if (entry.kernelChangedFromPrevious) lines << tr("  the kernel");
      for (const SettingDifference& difference : entry.sincePrevious) lines << QStringLiteral("  ") + differenceText(difference, true);
      if (!entry.kernelChangedFromPrevious && entry.sincePrevious.empty()) lines << tr("  nothing in the settings");
    }
    if (!entry.current && m_history.currentId != 0 && !entry.againstCurrent.empty()) {
      lines << tr("Against the current run #%1 (current → this):").arg(m_history.currentId);
      for (const SettingDifference& difference : entry.againstCurrent) lines << QStringLiteral("  ") + differenceText(difference, true);
    }
    return lines.join(QLatin1Char('\n'));
  }
  default: return {};
  }
}

} // namespace pto::widgets
