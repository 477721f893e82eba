// `pto report --by-line`: the table and the JSON of a run's cost per kernel line.
#include "app/pto/ReportByLine.h"

#include "analysis/report/LineCost.h"
#include "analysis/run/ProjectRun.h"
#include "core/project/OperatorProject.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

namespace pto::cli {
namespace {

// The lines of the kernel files a report names, read once each. A file is
// looked for where the kernel's ops say, then in the project's folder.
class SourceLines {
public:
  explicit SourceLines(const OperatorProject& project) : m_project(project) {}

  std::string text(const std::string& file, int line) {
    if (file.empty() || line <= 0) return {};
    auto [it, inserted] = m_files.try_emplace(file);
    if (inserted) it->second = read(file);
    const std::vector<std::string>& lines = it->second;
    if (static_cast<std::size_t>(line) > lines.size()) return {};
    const std::string& text = lines[static_cast<std::size_t>(line - 1)];
    std::size_t first = text.find_first_not_of(" \t");
    return first == std::string::npos ? std::string() : text.substr(first);
  }

private:
  std::vector<std::string> read(const std::string& file) const {
    std::filesystem::path path(file);
    std::error_code error;
    if (!std::filesystem::is_regular_file(path, error)) path = m_project.directory() / path.filename();
    std::ifstream in(path);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      lines.push_back(std::move(line));
    }
    return lines;
  }

  const OperatorProject& m_project;
  std::map<std::string, std::vector<std::string>> m_files;
};

// How the table names a line's file: its name, or when the kernel's lines
// come from several files (a kernel loading its siblings' kernel.py), its
// path from the project's folder.
std::string fileLabel(const std::string& path, const OperatorProject& project, bool severalFiles) {
  if (!severalFiles) return std::filesystem::path(path).filename().string();
  std::error_code error;
  const std::filesystem::path file = std::filesystem::absolute(path, error).lexically_normal();
  const std::filesystem::path relative = file.lexically_relative(std::filesystem::absolute(project.directory(), error));
  return relative.empty() ? file.string() : relative.string();
}

// "VECTOR 62 %, MTE2 30 %": the line's busiest pipes, as parts of its pipe cycles.
std::string topPipes(const SourceLineCost& line, std::size_t count) {
  const auto pipes = busiestPipes(line);
  double total = 0.0;
  for (const auto& [pipe, cycles] : pipes) total += cycles;
  std::string text;
  for (std::size_t i = 0; i < pipes.size() && i < count; ++i) {
    char part[48];
    std::snprintf(part, sizeof part, "%s%s %.0f %%", i ? ", " : "", std::string(name(pipes[i].first)).c_str(),
                  100.0 * pipes[i].second / total);
    text += part;
  }
  return text.empty() ? "-" : text;
}

void printTable(const OperatorProject& project, const LineCostReport& report, SourceLines& sources) {
  const double us = report.clockGHz > 0 ? 1.0 / (report.clockGHz * 1000.0) : 0.0;
  bool severalFiles = false;
  for (const SourceLineCost& line : report.lines) severalFiles |= !line.file.empty() && line.file != report.lines.back().file;
  std::printf("%s on %s: busy %.2f us (AIC %.2f us, AIV %.2f us) over %zu kernel lines\n", project.name.c_str(),
              report.machine.c_str(), report.totalBusyCycles() * us, report.busyCycles[0] * us,
              report.busyCycles[1] * us, report.lines.size());
  std::printf("a line's share: the task time its instructions explain (pipe intervals split by modelled cost)\n\n");
  std::printf("%-16s %7s %12s %12s  %-28s %6s %7s  %s\n", "line", "share", "AIC cycles", "AIV cycles", "top pipes",
              "tasks", "instrs", "source");
  for (const SourceLineCost& line : report.lines) {
    const std::string where =
        line.line > 0 ? fileLabel(line.file, project, severalFiles) + ":" + std::to_string(line.line) : "(no line)";
    std::printf("%-16s %5.1f %% %12.0f %12.0f  %-28s %6zu %7lld  %s\n", where.c_str(), 100.0 * line.share,
                line.coreCycles[0], line.coreCycles[1], topPipes(line, 2).c_str(), line.tasks.size(),
                static_cast<long long>(line.instructions), sources.text(line.file, line.line).c_str());
  }
}

} // namespace

nlohmann::ordered_json reportByLine(const OperatorProject& project, const ProjectRunResult& run, bool print) {
  const LineCostReport report = lineCostReport(run.compiled->compilation, run.simulation->schedule, *run.machine);
  SourceLines sources(project);
  if (print) printTable(project, report, sources);
  return lineCostJson(report, [&](const std::string& file, int line) { return sources.text(file, line); });
}

} // namespace pto::cli
