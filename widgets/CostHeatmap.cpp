// The editor's cost heatmap: colours and texts.
#include "widgets/CostHeatmap.h"

#include <QLocale>
#include <QStringList>

#include <algorithm>
#include <cmath>

namespace pto::widgets {
namespace {

constexpr std::size_t kTaskIdsShown = 12;

QColor mix(const QColor& a, const QColor& b, double t) {
  auto channel = [t](int x, int y) { return static_cast<int>(std::lround(x + (y - x) * t)); };
  return QColor(channel(a.red(), b.red()), channel(a.green(), b.green()), channel(a.blue(), b.blue()));
}

// "65 349": digits grouped by thin spaces, whatever the user's locale.
QString grouped(double value) {
  QLocale locale = QLocale::c();
  locale.setNumberOptions(QLocale::DefaultNumberOptions);
  return locale.toString(static_cast<qlonglong>(std::llround(value))).replace(QLatin1Char(','), QChar(0x2009));
}

QString microseconds(double cycleCount, double clockGHz) {
  if (clockGHz <= 0.0) return {};
  return QStringLiteral(" (%1 µs)").arg(cycleCount / (clockGHz * 1000.0), 0, 'f', 2);
}

// "0-7" for a run of consecutive ids, "0, 3, 5" otherwise; at most `limit` listed.
QString idList(const std::vector<int>& ids, std::size_t limit) {
  if (!ids.empty() && static_cast<std::size_t>(ids.back() - ids.front()) + 1 == ids.size() && ids.size() > 2)
    return QStringLiteral("%1-%2").arg(ids.front()).arg(ids.back());
  QStringList parts;
  for (std::size_t i = 0; i < ids.size() && i < limit; ++i) parts << QString::number(ids[i]);
  if (ids.size() > limit) parts << QStringLiteral("… %1").arg(ids.back());
  return parts.join(QStringLiteral(", "));
}

} // namespace

int heatLevel(double share, double hottestShare) {
  if (!(share > 0.0) || !(hottestShare > 0.0)) return 0;
  return std::clamp(static_cast<int>(std::ceil(share / hottestShare * kHeatLevels - 1e-9)), 1, kHeatLevels);
}

QColor heatColour(int level) {
  const QColor white(255, 255, 255), yellow(255, 214, 64), red(215, 38, 38);
  const double t = std::clamp(level, 0, kHeatLevels) / static_cast<double>(kHeatLevels);
  return t <= 0.5 ? mix(white, yellow, t * 2.0) : mix(yellow, red, (t - 0.5) * 2.0);
}

QColor heatTextColour(int level) { return level > 7 ? QColor(255, 255, 255) : QColor(20, 20, 20); }

QString heatShareText(double share) {
  if (!(share > 0.0)) return QStringLiteral("0%");
  if (share < 0.0005) return QStringLiteral("<0.1%");
  return QStringLiteral("%1%").arg(100.0 * share, 0, 'f', 1);
}

QString costTooltipText(const SourceLineCost& line, const LineCostReport& report) {
  QStringList text;
  const double clock = report.clockGHz;
  text << QStringLiteral("Line %1: %2 of the run's busy time, %3 cycles%4")
              .arg(line.line)
              .arg(heatShareText(line.share), grouped(line.cycles()), microseconds(line.cycles(), clock));
  QStringList cores;
  for (auto [type, name] : {std::pair{CoreType::AIC, "AIC"}, std::pair{CoreType::AIV, "AIV"}}) {
    const double value = line.coreCycles[static_cast<std::size_t>(type)];
    if (value > 0.0) cores << QStringLiteral("%1 %2 cycles").arg(QLatin1String(name), grouped(value));
  }
  text << QStringLiteral("Cores: %1").arg(cores.isEmpty() ? QStringLiteral("none (its ops move nothing)") : cores.join(QStringLiteral(", ")));
  QStringList pipes;
  for (const auto& [pipe, value] : busiestPipes(line))
    pipes << QStringLiteral("%1 %2").arg(QString::fromUtf8(name(pipe).data(), static_cast<qsizetype>(name(pipe).size())), grouped(value));
  if (!pipes.isEmpty()) text << QStringLiteral("Pipes (busy cycles): %1").arg(pipes.join(QStringLiteral(", ")));
  std::vector<int> tasks(line.tasks.begin(), line.tasks.end());
  std::vector<int> subgraphs(line.subgraphs.begin(), line.subgraphs.end());
  text << QStringLiteral("%1 %2: %3, of subgraph%4 %5")
              .arg(tasks.size())
              .arg(tasks.size() == 1 ? QStringLiteral("task") : QStringLiteral("tasks"))
              .arg(idList(tasks, kTaskIdsShown))
              .arg(subgraphs.size() == 1 ? QString() : QStringLiteral("s"))
              .arg(idList(subgraphs, kTaskIdsShown));
  QStringList opcodes;
  for (const auto& [opcode, count] : line.opcodes)
    opcodes << QStringLiteral("%1 %2").arg(QString::fromUtf8(name(opcode).data(), static_cast<qsizetype>(name(opcode).size())),
                                          grouped(static_cast<double>(count)));
  text << (opcodes.isEmpty() ? QStringLiteral("No instructions")
                             : QStringLiteral("%1 instructions: %2").arg(grouped(static_cast<double>(line.instructions)),
                                                                         opcodes.join(QStringLiteral(", "))));
  return text.join(QLatin1Char('\n'));
}

} // namespace pto::widgets
