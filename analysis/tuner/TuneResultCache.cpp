// The tuner's result cache: a point's key and its lookups and writes in the ledger.
#include "analysis/tuner/TuneResultCache.h"

#include "analysis/ledger/RunLedger.h"
#include "core/AtomicFile.h"
#include "core/Version.h"
#include "npusim/MachineFile.h"

#include <cstdio>

namespace pto {

namespace {
using json = nlohmann::json;
} // namespace

TuneResultCache::TuneResultCache(const TracedProject& traced, const TuneOptions& options,
                                 const VariantSimulator& simulator)
    : m_traced(traced), m_options(options) {
  if (!m_options.cache) return;
  const StageKey& graphKey = simulator.graphKey();
  // What every point shares: the build, the kernel as traced, and its graph.
  std::string kernel = traced.sourceText.value_or(std::string());
  std::string reason;
  if (!traced.sourceText) readFile(traced.project.sourcePath(), kernel, reason);
  char graph[40];
  std::snprintf(graph, sizeof graph, "%016llx%016llx", static_cast<unsigned long long>(graphKey.high),
                static_cast<unsigned long long>(graphKey.low));
  std::string context = std::string(kVersion) + "\n" + kernel + "\n" + graph;
  for (const HostTensor& argument : traced.arguments) {
    context += "\n" + std::string(name(argument.dtype()));
    for (std::int64_t extent : argument.shape()) context += " " + std::to_string(extent);
  }
  m_context = fingerprint(context);
}

std::vector<std::size_t> TuneResultCache::fill(const TuneSpace& space, std::vector<TunePoint>& points,
                                               const std::vector<std::size_t>& which, DiagnosticEngine& diags) {
  if (!m_options.cache) return which;
  std::vector<std::string> keys;
  for (std::size_t i : which)
    keys.push_back(m_keyOfPoint[i] = keyOfDocument(tuneDocument(m_traced.project, space, points[i].choice)));
  if (!m_options.readCache) return which;
  DiagnosticEngine readDiags;
  auto found = m_options.cache->findTunePoints(keys, readDiags);
  if (!found) {
    warnOnce(readDiags, diags);
    return which;
  }
  std::map<std::string, const TunePointRecord*> byKey;
  for (const TunePointRecord& record : *found) byKey[record.key] = &record;
  std::vector<std::size_t> left;
  for (std::size_t k = 0; k < which.size(); ++k) {
    auto hit = keys[k].empty() ? byKey.end() : byKey.find(keys[k]);
    if (hit == byKey.end()) {
      left.push_back(which[k]);
      continue;
    }
    TunePoint& point = points[which[k]];
    point.status = hit->second->status;
    point.reason = hit->second->reason;
    point.makespanUs = hit->second->makespanUs;
    point.busyUs = hit->second->busyUs;
    point.cached = true;
  }
  return left;
}

void TuneResultCache::keep(const TuneSpace& space, const std::vector<TunePoint>& points,
                           const std::vector<std::size_t>& simulated, DiagnosticEngine& diags) {
  if (!m_options.cache) return;
  std::vector<TunePointRecord> records;
  for (std::size_t i : simulated) {
    const TunePoint& point = points[i];
    const std::string& key = m_keyOfPoint[i];
    if (key.empty() || (point.status == "failed" && point.reason == kCancelled)) continue;
    nlohmann::ordered_json settings = nlohmann::ordered_json::object();
    for (std::size_t d = 0; d < space.dimensions.size(); ++d)
      settings[space.dimensions[d].path] =
          nlohmann::ordered_json::parse(space.dimensions[d].values[static_cast<std::size_t>(point.choice[d])].dump());
    records.push_back({key, std::move(settings), point.status, point.reason, point.makespanUs, point.busyUs});
  }
  DiagnosticEngine writeDiags;
  if (!records.empty() && !m_options.cache->recordTunePoints(records, writeDiags)) warnOnce(writeDiags, diags);
}

std::optional<TunePointOutcome> TuneResultCache::findBaseline(DiagnosticEngine& diags) {
  if (!m_options.cache || !m_options.readCache) return std::nullopt;
  const std::string& key = baselineKey();
  if (key.empty()) return std::nullopt;
  DiagnosticEngine readDiags;
  auto found = m_options.cache->findTunePoints({key}, readDiags);
  if (!found) warnOnce(readDiags, diags);
  if (!found || found->empty() || found->front().status != "ok") return std::nullopt;
  const TunePointRecord& record = found->front();
  return TunePointOutcome{record.status, record.reason, record.makespanUs, record.busyUs};
}

void TuneResultCache::keepBaseline(const TunePointOutcome& outcome, DiagnosticEngine& diags) {
  if (!m_options.cache) return;
  const std::string& key = baselineKey();
  if (key.empty()) return;
  DiagnosticEngine writeDiags;
  if (!m_options.cache->recordTunePoints(
          {{key, nlohmann::ordered_json::object(), outcome.status, outcome.reason, outcome.makespanUs, outcome.busyUs}},
          writeDiags))
    warnOnce(writeDiags, diags);
}

std::string TuneResultCache::fingerprint(const std::string& text) {
  return kernelHash(text) + kernelHash("tune\n" + text);
}

std::string TuneResultCache::keyOfDocument(json document) {
  document.erase("tune");
  const std::string machine = document.value("machine", m_traced.project.machine);
  auto known = m_machines.find(machine);
  if (known == m_machines.end()) {
    DiagnosticEngine quiet;
    std::string bytes, reason;
    auto description = findMachine(machine, quiet, SourceLocation{}, m_traced.project.directory());
    if (!description || !readFile(description->file, bytes, reason)) bytes.clear();
    else bytes = fingerprint(bytes);
    known = m_machines.emplace(machine, bytes).first;
  }
  if (known->second.empty()) return {};
  return fingerprint(m_context + "\n" + known->second + "\n" + document.dump());
}

const std::string& TuneResultCache::baselineKey() {
  if (!m_baselineKey) m_baselineKey = keyOfDocument(json::parse(m_traced.project.document.dump()));
  return *m_baselineKey;
}

void TuneResultCache::warnOnce(const DiagnosticEngine& from, DiagnosticEngine& diags) {
  if (m_warned || from.diagnostics().empty()) return;
  m_warned = true;
  const Diagnostic& first = from.diagnostics().front();
  diags.warning(first.location) << first.message << "; the sweep goes on without its result cache";
}

} // namespace pto
