// The advisor's tile-shape and subgraph rules: small-m-matmul,
// consumer-finer-than-producer, empty-subgraph, tile-near-capacity,
// low-double-buffer-overlap and uneven-waves (Advisor.h says what each looks
// for and changes).
#include "analysis/AdvisorContext.h"

#include "analysis/TileBufferCheck.h"
#include "analysis/TileSites.h"
#include "compiler/settings/TileSettings.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <numeric>
#include <set>

namespace pto::advisor {
namespace {

using json = nlohmann::json;

std::int64_t elements(const std::vector<std::int64_t>& shape) {
  return std::accumulate(shape.begin(), shape.end(), std::int64_t{1}, std::multiplies<>());
}

std::string dimsText(const std::vector<std::int64_t>& shape) {
  std::string text;
  for (std::int64_t dim : shape) text += (text.empty() ? "" : "x") + std::to_string(dim);
  return text;
}

std::string percent(double share) { return std::to_string(static_cast<int>(100.0 * share + 0.5)) + " %"; }

// The tile sites of the kernel under the project's settings, and the checks of their shapes.
class Sites {
public:
  explicit Sites(const Context& context)
      : m_context(context), m_sites(collectTileSites(context.traced.graph, context.traced.project.tileSettings,
                                                     context.compilation().tiles.bindings)) {}

  // The key whose entry would decide `op`'s tile: the call site's when the
  // project sets it (it takes precedence), else the op's label, else the call site.
  const TileSite* governing(TileSection section, OpId op) const {
    const TileSite* call = nullptr;
    const TileSite* label = nullptr;
    for (const TileSite& site : m_sites) {
      if (site.section != section) continue;
      const bool governs = std::any_of(site.governs.begin(), site.governs.end(),
                                       [&](const GovernedOp& governed) { return governed.op == op; });
      if (!governs) continue;
      if (site.kind == TileSiteKind::CallSite) call = &site;
      else if (site.kind == TileSiteKind::Label) label = &site;
    }
    if (call && !call->projectValue.is_null()) return call;
    return label ? label : call;
  }

  TileBufferChecker checker(const TileSite& site) const {
    const Compilation& compilation = m_context.compilation();
    return TileBufferChecker(m_context.traced.graph, site, compilation.tiles.bindings, compilation.settings.target);
  }

private:
  const Context& m_context;
  std::vector<TileSite> m_sites;
};

// A vec site's tile now in force, when all its ops agree on one.
std::optional<std::vector<std::int64_t>> vecTileOf(const TileSite& site) {
  std::string error;
  if (site.effectiveValue.is_null()) return std::nullopt;
  return vecShapeFromJson(site.effectiveValue, error);
}

json vecTilePatch(const Context& context, const TileSite& site, const std::vector<std::int64_t>& tile) {
  return setMemberPatch(context.traced.project.document, "tile_settings", "vec", site.key, tile);
}

// Whether the compiler can take `tile` at `site` (it may still not fit once ops fuse: the simulation says).
bool mayCompile(const TileBufferCheck& check) { return check.fit == TileFit::Fits || check.fit == TileFit::MayNotFit; }

// Tasks of one isomorphic subgraph class (one program), with their pipe time.
struct ProgramTasks {
  std::string label;
  CoreType coreType = CoreType::AIV;
  SubgraphId first = kNoId;  // its lowest-id subgraph
  int tasks = 0, schedulingBound = 0;
  double durationCycles = 0.0;
  std::map<std::string, double> pipeCycles;  // summed over the tasks
};

std::map<int, ProgramTasks> programTasks(const Context& context) {
  const Compilation& compilation = context.compilation();
  const Schedule& schedule = context.schedule();
  std::map<int, ProgramTasks> programs;
  for (const Task& task : compilation.tasks.tasks) {
    const Subgraph& subgraph = compilation.blocks.subgraph(task.subgraph);
    ProgramTasks& entry = programs[subgraph.programId];
    if (entry.tasks == 0) entry.label = subgraph.label, entry.coreType = subgraph.coreType, entry.first = subgraph.id;
    entry.first = std::min(entry.first, subgraph.id);
    ++entry.tasks;
    const TaskRecord& record = schedule.tasks[static_cast<std::size_t>(task.id)];
    entry.durationCycles += static_cast<double>(record.endCycle - record.startCycle);
    entry.schedulingBound += context.health.taskBounds[static_cast<std::size_t>(task.id)].kind == "scheduling";
    for (const PipeInterval& interval : record.pipes)
      entry.pipeCycles[interval.pipe] += static_cast<double>(interval.endCycle - interval.startCycle);
  }
  return programs;
}

bool movesDataOnly(TensorOpKind kind) {
  switch (kind) {
  case TensorOpKind::Copy:
  case TensorOpKind::Assemble:
  case TensorOpKind::View:
  case TensorOpKind::Reshape:
  case TensorOpKind::Unsqueeze:
  case TensorOpKind::Bitcast: return true;
  default: return false;
  }
}

// The memory (UB or L1) a subgraph fills to at least `share` of the capacity, if any.
std::optional<MemoryKind> nearlyFullMemory(const Subgraph& subgraph, const TargetInfo& target, double share) {
  for (MemoryKind memory : {MemoryKind::UB, MemoryKind::L1}) {
    const std::int64_t capacity = target.capacity(memory);
    if (capacity > 0 && static_cast<double>(subgraph.peakBytes[static_cast<std::size_t>(memory)]) >= share * capacity)
      return memory;
  }
  return std::nullopt;
}

constexpr double kNearCapacity = 0.9;

} // namespace

// small-m-matmul: see Advisor.h.
void adviseSmallMMatmul(Context& context) {
  constexpr std::int64_t kSmallM = 64, kLargestM = 256, kCubeAlignment = 16;
  const Compilation& compilation = context.compilation();
  const TensorGraph& graph = context.traced.graph;
  const Sites sites(context);
  std::map<std::string, std::pair<const TileSite*, std::int64_t>> targets;  // key -> site, the largest M it tiles
  for (const TensorOp& op : graph.ops()) {
    if (op.kind != TensorOpKind::Matmul || op.outputs.empty()) continue;
    const TileSite* site = sites.governing(TileSection::Cube, op.id);
    if (!site) continue;
    const auto& rows = compilation.tiles.shapeOf(op.outputs[0]);
    if (rows.size() < 2) continue;
    auto& target = targets[site->key];
    target.first = site;
    target.second = std::max(target.second, rows[rows.size() - 2]);
  }
  for (const auto& [key, target] : targets) {
    const auto& [site, rowsM] = target;
    std::string error;
    if (site->effectiveValue.is_null()) continue;
    const auto shape = cubeTileShapeFromSetting(site->effectiveValue, error);
    if (!shape || shape->mL0 >= kSmallM || rowsM <= shape->mL0) continue;
    const std::int64_t largest = std::min(kLargestM, (rowsM + kCubeAlignment - 1) / kCubeAlignment * kCubeAlignment);
    const TileBufferChecker checker = sites.checker(*site);
    std::vector<std::pair<std::string, json>> candidates;
    for (std::int64_t m = shape->mL0 * 2; m <= largest; m *= 2) {
      CubeTileShape larger = *shape;
      larger.mL0 = m;
      larger.mL1 = std::max(m, shape->mL1 / shape->mL0 * m);
      if (!checker.checkCube(larger).fits()) continue;
      candidates.emplace_back(std::to_string(m), setMemberPatch(context.traced.project.document, "tile_settings",
                                                                "cube", key, cubeShapeJson(larger)));
    }
    const std::vector<std::string> labels = site->labels();
    int tasks = 0;
    for (const Task& task : compilation.tasks.tasks)
      tasks += task.coreType == CoreType::AIC &&
               std::count(labels.begin(), labels.end(), compilation.blocks.subgraph(task.subgraph).label) > 0;
    const std::string evidence = "the matmuls of '" + key + "' are cut into output blocks of " +
                                 std::to_string(shape->mL0) + " rows of their " + std::to_string(rowsM) +
                                 " (the cube works in 16-row fractals and is fed best with 64 to 256 rows): " +
                                 std::to_string(tasks) + " cube tasks, each loading a " + std::to_string(shape->kBL1) +
                                 "x" + std::to_string(shape->nL0) + " panel of B for " + std::to_string(shape->mL0) +
                                 " rows of A";
    context.propose("small-m-matmul", key, evidence,
                    // Copies: clang before 16 cannot capture a structured binding.
                    [key = key, shape](const std::string& value) {
                      return "cube tile m " + value + " for '" + key + "' (now " + std::to_string(shape->mL0) +
                             "): fewer matmul blocks, each reusing its B panel for more rows";
                    },
                    candidates);
  }
}

// consumer-finer-than-producer: see Advisor.h.
void adviseConsumerTiles(Context& context) {
  const Compilation& compilation = context.compilation();
  const TileGraph& tiles = compilation.tiles;
  const auto& subgraphOf = compilation.blocks.subgraphOfTileOp;
  std::map<TensorId, TileOpId> writer;  // storage tensor -> its first writing tile op
  for (const TileOp& op : tiles.tileOps())
    for (const TileRegion& output : op.outputs) writer.emplace(output.tensor, op.id);
  const Sites sites(context);
  std::set<std::string> done;
  for (const TensorOp& consumer : context.traced.graph.ops()) {
    if (movesDataOnly(consumer.kind) || static_cast<std::size_t>(consumer.id) >= tiles.graph.ops().size()) continue;
    const auto& consumerTiles = tiles.tilesOf(consumer.id);
    if (consumerTiles.empty()) continue;
    const TileOp& first = tiles.tileOp(consumerTiles.front());
    const SubgraphId consumerSubgraph = subgraphOf[static_cast<std::size_t>(first.id)];
    if (compilation.blocks.subgraph(consumerSubgraph).coreType != CoreType::AIV) continue;
    const TileSite* site = sites.governing(TileSection::Vec, consumer.id);
    if (!site || done.count(site->key)) continue;
    const auto tile = vecTileOf(*site);
    if (!tile) continue;
    for (const TileRegion& input : first.inputs) {
      auto found = writer.find(input.tensor);
      if (found == writer.end()) continue;
      const TileOp& producer = tiles.tileOp(found->second);
      if (producer.tensorOp == consumer.id || subgraphOf[static_cast<std::size_t>(producer.id)] == consumerSubgraph)
        continue;  // on chip: the consumer's tile costs no extra loads
      const TileRegion* written = nullptr;
      for (const TileRegion& output : producer.outputs)
        if (output.tensor == input.tensor) written = &output;
      const std::vector<std::int64_t>& produced = written->shape;
      if (produced.size() != input.shape.size() || tile->size() != produced.size()) continue;
      bool inside = true;
      for (std::size_t d = 0; d < produced.size(); ++d) inside = inside && input.shape[d] <= produced[d];
      const std::int64_t readsPerTile = elements(produced) / std::max<std::int64_t>(1, elements(input.shape));
      if (!inside || readsPerTile < 2) continue;
      // Grow the consumer's tile toward the producer's, along the dims where it is smaller.
      const TileBufferChecker checker = sites.checker(*site);
      std::vector<std::pair<std::string, json>> candidates;
      std::vector<std::int64_t> previous = *tile;
      for (std::int64_t factor = 2; factor <= readsPerTile; factor *= 2) {
        std::vector<std::int64_t> grown = *tile;
        for (std::size_t d = 0; d < grown.size(); ++d)
          if (input.shape[d] < produced[d]) grown[d] = std::min(produced[d], (*tile)[d] * factor);
        if (grown == previous) break;
        previous = grown;
        if (!mayCompile(checker.checkVec(grown))) continue;
        candidates.emplace_back(vecShapeText(grown), vecTilePatch(context, *site, grown));
      }
      const std::string producerLabel = tiles.graph.op(producer.tensorOp).label;
      const std::string evidence =
          "'" + consumer.label + "' (" + std::string(name(consumer.kind)) + ") reads the " + dimsText(produced) +
          " tiles '" + producerLabel + "' (" + std::string(name(tiles.graph.op(producer.tensorOp).kind)) +
          ") writes to global memory " + dimsText(input.shape) + " at a time: each produced tile is loaded by " +
          std::to_string(readsPerTile) + " vector tasks, " + std::to_string(consumerTiles.size()) + " in all";
      context.propose("consumer-finer-than-producer", site->key, evidence,
                      [&](const std::string& value) {
                        return "vec tile [" + value + "] for '" + site->key + "' (now [" + vecShapeText(*tile) +
                               "]): read what '" + producerLabel + "' writes in fewer, larger tiles";
                      },
                      candidates);
      done.insert(site->key);
      break;
    }
  }
}

// empty-subgraph: see Advisor.h.
void adviseEmptySubgraphs(Context& context) {
  constexpr std::size_t kMostOverrides = 256;
  const Compilation& compilation = context.compilation();
  const TileGraph& tiles = compilation.tiles;
  const BlockGraph& blocks = compilation.blocks;
  auto dataOnly = [&](const Subgraph& subgraph) {
    return !subgraph.ops.empty() && std::all_of(subgraph.ops.begin(), subgraph.ops.end(), [&](TileOpId op) {
      return movesDataOnly(tiles.tileOp(op).kind);
    });
  };
  // Where each GM region is read and written, by the subgraphs that compute.
  std::map<std::string, SubgraphId> readers, writers;
  for (const Subgraph& subgraph : blocks.subgraphs) {
    if (dataOnly(subgraph)) continue;
    for (const TileRegion& region : subgraph.copyIns) readers.emplace(regionString(tiles, region), subgraph.id);
    for (const TileRegion& region : subgraph.copyOuts) writers.emplace(regionString(tiles, region), subgraph.id);
  }
  // A subgraph as an override names it: its first tile op, by tensor op and tile index.
  auto reference = [&](const Subgraph& subgraph) {
    const TileOp& op = tiles.tileOp(subgraph.ops.front());
    const auto& siblings = tiles.tilesOf(op.tensorOp);
    const auto index = std::find(siblings.begin(), siblings.end(), op.id) - siblings.begin();
    return json{{"tensor_op", op.tensorOp}, {"tile", index}};
  };
  json merges = json::array();
  int emptySubgraphs = 0, emptyTasks = 0, withPartner = 0;
  std::string label, partnerLabel;
  std::set<SubgraphId> partners;
  for (const Subgraph& subgraph : blocks.subgraphs) {
    if (!dataOnly(subgraph)) continue;
    ++emptySubgraphs;
    if (label.empty()) label = subgraph.label;
    std::optional<SubgraphId> partner;
    for (const TileRegion& region : subgraph.copyIns) {
      const std::string text = regionString(tiles, region);
      for (const auto* map : {&readers, &writers}) {
        auto found = map->find(text);
        if (partner || found == map->end()) continue;
        const Subgraph& other = blocks.subgraph(found->second);
        if (other.scope == subgraph.scope && other.coreType == subgraph.coreType && !partners.count(other.id))
          partner = other.id;
      }
    }
    if (!partner || merges.size() >= kMostOverrides) continue;
    partners.insert(*partner);
    ++withPartner;
    if (partnerLabel.empty()) partnerLabel = blocks.subgraph(*partner).label;
    merges.push_back({{"merge", json::array({reference(subgraph), reference(blocks.subgraph(*partner))})},
                      {"note", "pto advise empty-subgraph: '" + subgraph.label + "' only moves data"}});
  }
  if (emptySubgraphs == 0) return;
  for (const Task& task : compilation.tasks.tasks) emptyTasks += dataOnly(blocks.subgraph(task.subgraph));
  std::vector<std::pair<std::string, json>> candidates;
  // Passes that fold copies and views, turned off by the project: turning them on again is the first fix.
  const auto& passOptions = context.traced.project.passOptions;
  if (passOptions.is_object() && passOptions.contains("disable_pass")) {
    json kept = json::array();
    bool folding = false;
    json disabled = passOptions["disable_pass"];
    if (!disabled.is_array()) disabled = json::array({disabled});
    for (const auto& pass : disabled) {
      if (pass == "RemoveRedundantOp" || pass == "ForwardAssemble") folding = true;
      else kept.push_back(pass);
    }
    if (folding)
      candidates.emplace_back("enable copy folding",
                              json::array({{{"op", "replace"}, {"path", "/pass_options/disable_pass"}, {"value", kept}}}));
  }
  // Otherwise each joins a subgraph of its core type that reads the same data or wrote it, so the bytes it
  // moves are loaded once and it costs no task of its own.
  if (withPartner > 0) {
    const json& document = context.traced.project.document;
    json patch = json::array();
    if (document.contains("partition_overrides") && document["partition_overrides"].is_array())
      for (const auto& entry : merges) patch.push_back({{"op", "add"}, {"path", "/partition_overrides/-"}, {"value", entry}});
    else
      patch.push_back({{"op", "add"}, {"path", "/partition_overrides"}, {"value", merges}});
    candidates.emplace_back("merge " + std::to_string(withPartner), patch);
  }
  const std::string evidence = std::to_string(emptyTasks) + " tasks of " + std::to_string(emptySubgraphs) +
                               " subgraphs ('" + label + "' first) only move data (copies, assembles, reshapes): " +
                               "each loads its tiles from global memory and stores them again" +
                               (withPartner > 0 ? "; " + std::to_string(withPartner) + " of them read what a '" +
                                                      partnerLabel + "' subgraph of the same core also reads or writes"
                                                : "");
  context.propose("empty-subgraph", label, evidence,
                  [&](const std::string& value) {
                    if (value == "enable copy folding")
                      return std::string("take RemoveRedundantOp and ForwardAssemble out of disable_pass: fold the "
                                         "copies into their producers");
                    return "partition_overrides: " + value.substr(6) + " data-moving subgraphs of '" + label +
                           "' merged into the '" + partnerLabel + "' subgraphs that share their data";
                  },
                  candidates);
}

// tile-near-capacity: see Advisor.h.
void adviseTileNearCapacity(Context& context) {
  const Compilation& compilation = context.compilation();
  const TargetInfo& target = compilation.settings.target;
  const Sites sites(context);
  std::set<std::string> done;
  for (const auto& [program, tasks] : programTasks(context)) {
    const Subgraph& subgraph = compilation.blocks.subgraph(tasks.first);
    if (subgraph.coreType != CoreType::AIV || subgraph.overlap == BufferOverlap::PingPong) continue;
    const auto memory = nearlyFullMemory(subgraph, target, kNearCapacity);
    if (!memory) continue;
    const OpId op = compilation.tiles.tileOp(subgraph.ops.front()).tensorOp;
    const TileSite* site = sites.governing(TileSection::Vec, op);
    if (!site || done.count(site->key)) continue;
    const auto tile = vecTileOf(*site);
    if (!tile) continue;
    done.insert(site->key);
    const TileBufferChecker checker = sites.checker(*site);
    std::vector<std::pair<std::string, json>> candidates;
    std::set<std::vector<std::int64_t>> seen;
    for (std::size_t d = 0; d < tile->size(); ++d)
      for (auto [numerator, denominator] : {std::pair{3, 4}, std::pair{1, 2}, std::pair{1, 4}}) {
        std::vector<std::int64_t> smaller = *tile;
        smaller[d] = (*tile)[d] * numerator / denominator;
        if (smaller[d] < 1 || smaller[d] == (*tile)[d] || !seen.insert(smaller).second) continue;
        if (!mayCompile(checker.checkVec(smaller))) continue;
        candidates.emplace_back(vecShapeText(smaller), vecTilePatch(context, *site, smaller));
      }
    const std::size_t index = static_cast<std::size_t>(*memory);
    const std::string evidence =
        std::to_string(tasks.tasks) + " '" + subgraph.label + "' tasks with " + vecShapeText(*tile) + " tiles use " +
        formatBytes(subgraph.peakBytes[index]) + " of the " + formatBytes(target.capacity(*memory)) + " " +
        memoryLabel(*memory) + " (" + percent(static_cast<double>(subgraph.peakBytes[index]) / target.capacity(*memory)) +
        "): no room to double-buffer (" + std::string(name(subgraph.overlap)) + "), so each tile's load waits for the " +
        "bytes the previous tile still uses";
    context.propose("tile-near-capacity", site->key, evidence,
                    [&](const std::string& value) {
                      return "vec tile [" + value + "] for '" + site->key + "' (now [" + vecShapeText(*tile) +
                             "]): room for the next tile's load while this one computes";
                    },
                    candidates);
  }
}

// low-double-buffer-overlap: see Advisor.h.
void adviseLowOverlap(Context& context) {
  // Pipes that run one after the other: their busy times add up to (nearly)
  // the task, and no pipe alone holds most of it, so overlapping them would pay.
  constexpr double kSerialShare = 0.9, kMostSerialShare = 1.1, kMostBusiestShare = 0.75;
  const Compilation& compilation = context.compilation();
  const TargetInfo& target = compilation.settings.target;
  std::set<std::string> done;
  for (const auto& [program, tasks] : programTasks(context)) {
    if (tasks.label.empty() || tasks.durationCycles <= 0 || done.count(tasks.label)) continue;
    // Tasks shorter than a scheduler round are scheduling-bound-vector's case (merging them pays for dispatch).
    if (2 * tasks.schedulingBound >= tasks.tasks) continue;
    const Subgraph& subgraph = compilation.blocks.subgraph(tasks.first);
    // A buffer too full to double-buffer is tile-near-capacity's case.
    if (subgraph.overlap != BufferOverlap::PingPong && nearlyFullMemory(subgraph, target, kNearCapacity)) continue;
    double summed = 0.0, busiest = 0.0;
    std::string busiestPipe;
    for (const auto& [pipe, cycles] : tasks.pipeCycles) {
      summed += cycles;
      if (cycles > busiest) busiest = cycles, busiestPipe = pipe;
    }
    const double serialShare = summed / tasks.durationCycles, busiestShare = busiest / tasks.durationCycles;
    if (serialShare < kSerialShare || serialShare > kMostSerialShare || busiestShare > kMostBusiestShare) continue;
    done.insert(tasks.label);
    std::vector<std::pair<std::string, json>> candidates;
    const auto& passOptions = context.traced.project.passOptions;
    if (passOptions.is_object() && passOptions.contains("ooo_sched_mode") && passOptions["ooo_sched_mode"] == 0)
      candidates.emplace_back("ooo_sched_mode 1",
                              json::array({{{"op", "replace"}, {"path", "/pass_options/ooo_sched_mode"}, {"value", 1}}}));
    // Several tiles per task: the next tile's load overlaps this tile's compute.
    const std::string option = tasks.coreType == CoreType::AIV ? "vec_nbuffer_setting" : "cube_nbuffer_setting";
    const int current = mergeCountFor(context.traced.project, option, tasks.label);
    for (int n : {current * 2, current * 4})
      if (n <= tasks.tasks)
        candidates.emplace_back(option + " " + std::to_string(n),
                                setMemberPatch(context.traced.project.document, "pass_options", option, tasks.label, n));
    std::string pipes;
    for (const auto& [pipe, cycles] : tasks.pipeCycles)
      pipes += (pipes.empty() ? "" : ", ") + pipe + " " + percent(cycles / tasks.durationCycles);
    const std::string evidence = std::to_string(tasks.tasks) + " '" + tasks.label + "' " +
                                 (tasks.coreType == CoreType::AIV ? "vector" : "cube") + " tasks keep their pipes busy " +
                                 pipes + " of their time: " + percent(serialShare) +
                                 " summed, so loads, compute and stores barely overlap (the busiest, " + busiestPipe +
                                 ", alone would take " + percent(busiestShare) + ")";
    context.propose("low-double-buffer-overlap", tasks.label, evidence,
                    [label = tasks.label](const std::string& value) {
                      return value + " for '" + label + "': loads overlap compute";
                    },
                    candidates);
  }
}

// uneven-waves: see Advisor.h. The wave arithmetic: a label's T tasks of the
// mean duration d on C cores take ceil(T / C) waves of d. An m' x n' output
// block instead of m x n makes T' = T x blocks' / blocks tasks of d' each,
// d' scaled as the task's busiest pipe after each pipe is scaled by what it
// moves for the block (the loads, MTE2 and MTE1: m' + n' rows and columns of
// operands) or computes and writes (CUBE, FIXPIPE, MTE3: m' x n').
void adviseUnevenWaves(Context& context) {
  constexpr double kNoticeableShare = 0.05;  // of the makespan, what the partial wave must cost
  constexpr std::int64_t kCubeAlignment = 16, kLargestTile = 512;
  constexpr std::size_t kSimulated = 3;  // the best estimates that fit are simulated
  const HealthReport& health = context.health;
  const double makespan = static_cast<double>(health.makespanCycles);
  const double cyclesPerUs = health.clockGHz * 1000.0;
  const Compilation& compilation = context.compilation();
  const Sites sites(context);
  auto ceilDiv = [](std::int64_t a, std::int64_t b) { return (a + b - 1) / b; };
  for (const WaveHealth& wave : health.waves) {
    if (wave.label.empty() || wave.coreType != "AIC" || wave.pathCoreWaitCycles == 0 || wave.tasks <= wave.cores ||
        wave.lastWaveTasks >= wave.cores || cyclesPerUs <= 0)
      continue;
    const double taskCycles = static_cast<double>(wave.busyCycles) / wave.tasks;
    auto spanCycles = [&](std::int64_t tasks, double cyclesEach) {
      return static_cast<double>(ceilDiv(tasks, wave.cores)) * cyclesEach;
    };
    const double span = spanCycles(wave.tasks, taskCycles);
    const double partialWaveCost = span - wave.tasks * taskCycles / wave.cores;
    if (partialWaveCost < kNoticeableShare * makespan) continue;
    // The label's matmuls: one key deciding their tile and one output shape, or the arithmetic does not hold.
    const TileSite* site = nullptr;
    std::int64_t rowsM = 0, colsN = 0;
    bool alike = true;
    for (const TensorOp& op : context.traced.graph.ops()) {
      if (op.kind != TensorOpKind::Matmul || op.label != wave.label || op.outputs.empty()) continue;
      const TileSite* governing = sites.governing(TileSection::Cube, op.id);
      const auto& output = compilation.tiles.shapeOf(op.outputs[0]);
      if (!governing || output.size() < 2 ||
          (site && (governing != site || output[output.size() - 2] != rowsM || output.back() != colsN))) {
        alike = false;
        break;
      }
      site = governing;
      rowsM = output[output.size() - 2];
      colsN = output.back();
    }
    std::string error;
    if (!alike || !site || site->effectiveValue.is_null()) continue;
    const auto shape = cubeTileShapeFromSetting(site->effectiveValue, error);
    if (!shape || shape->mL0 <= 0 || shape->nL0 <= 0) continue;
    auto blocks = [&](std::int64_t m, std::int64_t n) { return ceilDiv(rowsM, m) * ceilDiv(colsN, n); };
    const std::int64_t blocksNow = blocks(shape->mL0, shape->nL0);
    if (wave.tasks % blocksNow != 0) continue;  // not one task per output block (and batch or loop copy)
    struct Estimate {
      std::int64_t m = 0, n = 0, tasks = 0;
      double makespanCycles = 0.0;
    };
    // The label's mean pipe cycles per task, for scaling a task's time with its block.
    std::map<std::string, double> pipeCycles;
    for (const SubgraphHealth& subgraph : health.subgraphs)
      if (subgraph.label == wave.label && subgraph.coreType == wave.coreType)
        for (const PipeBusy& pipe : subgraph.pipes) pipeCycles[pipe.pipe] += static_cast<double>(pipe.cycles) / wave.tasks;
    auto busiest = [&](double loadScale, double blockScale) {
      double most = 0.0;
      for (const auto& [pipe, cycles] : pipeCycles) {
        const bool loads = pipe == "MTE2" || pipe == "MTE1";
        const bool perBlock = pipe == "CUBE" || pipe == "FIXPIPE" || pipe == "MTE3";
        most = std::max(most, cycles * (loads ? loadScale : perBlock ? blockScale : 1.0));
      }
      return most;
    };
    const double busiestNow = busiest(1.0, 1.0);
    if (busiestNow <= 0) continue;
    std::vector<Estimate> estimates;
    for (std::int64_t m = kCubeAlignment; m <= std::min(kLargestTile, ceilDiv(rowsM, kCubeAlignment) * kCubeAlignment);
         m += kCubeAlignment)
      for (std::int64_t n = kCubeAlignment; n <= std::min(kLargestTile, ceilDiv(colsN, kCubeAlignment) * kCubeAlignment);
           n += kCubeAlignment) {
        const std::int64_t tasks = wave.tasks / blocksNow * blocks(m, n);
        const double loadScale = static_cast<double>(m + n) / static_cast<double>(shape->mL0 + shape->nL0);
        const double blockScale = static_cast<double>(m * n) / static_cast<double>(shape->mL0 * shape->nL0);
        const double each = taskCycles * busiest(loadScale, blockScale) / busiestNow;
        const double estimate = makespan - span + spanCycles(tasks, each);
        if (estimate <= makespan * (1.0 - kNoticeableShare)) estimates.push_back({m, n, tasks, estimate});
      }
    // Best first; estimates within half a percent of the makespan count as equal, and then fewer, larger
    // tasks come first (less dispatching, each operand panel loaded for more of the output).
    auto bucket = [&](const Estimate& e) { return std::llround(e.makespanCycles / (0.005 * makespan)); };
    std::stable_sort(estimates.begin(), estimates.end(), [&](const Estimate& a, const Estimate& b) {
      return std::make_pair(bucket(a), a.tasks) < std::make_pair(bucket(b), b.tasks);
    });
    // The best estimates whose tiles fit, k cut (L0 first, then the L1 panels) where the larger block needs it.
    const TileBufferChecker checker = sites.checker(*site);
    std::vector<std::pair<std::string, json>> candidates;
    std::vector<double> estimatesUs;
    std::map<std::string, std::string> outcomes;  // value -> its tasks and waves, for the title
    for (const Estimate& estimate : estimates) {
      if (candidates.size() == kSimulated) break;
      std::optional<CubeTileShape> fitting;
      for (std::int64_t kCut = 1; kCut <= 4 && !fitting; kCut *= 2)
        for (std::int64_t panelCut = 1; panelCut <= 4 && !fitting; panelCut *= 2) {
          CubeTileShape tile = *shape;
          tile.mL0 = estimate.m;
          tile.mL1 = std::max(estimate.m, shape->mL1 / shape->mL0 * estimate.m);
          tile.nL0 = estimate.n;
          tile.nL1 = std::max(estimate.n, shape->nL1 / shape->nL0 * estimate.n);
          tile.kL0 = std::max(kCubeAlignment, shape->kL0 / kCut);
          tile.kAL1 = std::max(tile.kL0, shape->kAL1 / panelCut);
          tile.kBL1 = std::max(tile.kL0, shape->kBL1 / panelCut);
          if (checker.checkCube(tile).fits()) fitting = tile;
        }
      if (!fitting) continue;
      const std::string value = "m " + std::to_string(estimate.m) + ", n " + std::to_string(estimate.n) + ", k " +
                                std::to_string(fitting->kL0) + "/" + std::to_string(fitting->kAL1);
      candidates.emplace_back(value, setMemberPatch(context.traced.project.document, "tile_settings", "cube", site->key,
                                                    cubeShapeJson(*fitting)));
      estimatesUs.push_back(estimate.makespanCycles / cyclesPerUs);
      char outcome[120];
      std::snprintf(outcome, sizeof outcome, "%lld tasks, %.2f waves on %d cores",
                    static_cast<long long>(estimate.tasks), static_cast<double>(estimate.tasks) / wave.cores, wave.cores);
      outcomes[value] = outcome;
    }
    char evidence[600];
    std::snprintf(evidence, sizeof evidence,
                  "%d '%s' cube tasks on %d cube cores: %.2f waves, the last with %d of %d cores busy; the critical "
                  "path waited %s for a free cube core behind them. By the wave arithmetic (%lld waves of %s tasks "
                  "where %.2f would do) the partial wave costs %s, %s of the makespan",
                  wave.tasks, wave.label.c_str(), wave.cores, wave.waves, wave.lastWaveTasks, wave.cores,
                  formatUs(static_cast<double>(wave.pathCoreWaitCycles) / cyclesPerUs).c_str(),
                  static_cast<long long>(ceilDiv(wave.tasks, wave.cores)), formatUs(taskCycles / cyclesPerUs).c_str(),
                  wave.waves, formatUs(partialWaveCost / cyclesPerUs).c_str(), percent(partialWaveCost / makespan).c_str());
    const std::string now = "m " + std::to_string(shape->mL0) + ", n " + std::to_string(shape->nL0) + ", k " +
                            std::to_string(shape->kL0) + "/" + std::to_string(shape->kAL1);
    context.propose("uneven-waves", wave.label, evidence,
                    [&](const std::string& value) {
                      return "cube tile " + value + " for '" + site->key + "' (now " + now + "): " + outcomes[value] +
                             ", waves that fill the cores";
                    },
                    candidates, estimatesUs);
  }
}

} // namespace pto::advisor
