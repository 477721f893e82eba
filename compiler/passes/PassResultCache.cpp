// Stage keys and the kept stages of the pass pipeline.
#include "compiler/passes/PassResultCache.h"

#include "compiler/ir/TensorGraph.h"

#include <algorithm>
#include <bit>
#include <type_traits>
#include <variant>

namespace pto {

namespace {

// Two FNV-1a-style 64-bit streams with different offsets and a final mix per
// step, so the halves are independent enough to make 128 bits.
constexpr std::uint64_t kStageHashPrime = 0x100000001b3ULL;

std::uint64_t mixStageHash(std::uint64_t hash, std::uint64_t value) {
  hash ^= value + 0x9e3779b97f4a7c15ULL + (hash << 6) + (hash >> 2);
  hash ^= hash >> 33;
  hash *= 0xff51afd7ed558ccdULL;
  hash ^= hash >> 33;
  return hash;
}

} // namespace

StageKeyBuilder::StageKeyBuilder() : m_key{0xcbf29ce484222325ULL, 0x84222325cbf29ce4ULL} {}
StageKeyBuilder::StageKeyBuilder(const StageKey& start) : m_key(start) {}

StageKeyBuilder& StageKeyBuilder::add(std::string_view text) {
  std::uint64_t high = m_key.high, low = m_key.low;
  for (unsigned char c : text) {
    high = (high ^ c) * kStageHashPrime;
    low = (low ^ (c + 0x5bu)) * kStageHashPrime;
  }
  // The length ends the text: "ab"+"c" and "a"+"bc" differ.
  m_key = {mixStageHash(high, text.size()), mixStageHash(low, ~text.size())};
  return *this;
}

StageKeyBuilder& StageKeyBuilder::add(std::int64_t value) {
  m_key = {mixStageHash(m_key.high, static_cast<std::uint64_t>(value)), mixStageHash(m_key.low, ~static_cast<std::uint64_t>(value))};
  return *this;
}

StageKeyBuilder& StageKeyBuilder::add(const StageKey& key) {
  m_key = {mixStageHash(m_key.high, key.high), mixStageHash(m_key.low, key.low)};
  return *this;
}

namespace {

// The traced graph's fingerprint, fed field by field instead of through its
// JSON dump: building and printing that document was some 4 % of the LI
// sweep, on its one thread before the points start. Every field of the graph
// goes in, also those the dump leaves out (valid shapes, reshapeOf, the
// kernel's options, sites); each list is preceded by its length, so the
// stream has one reading. A field added to these structs must be fed here.
static_assert(sizeof(TensorGraph) == 256, "TensorGraph changed: feed the new field to fingerprintOf");
static_assert(sizeof(TensorValue) == 192, "TensorValue changed: feed the new field to fingerprintOf");
static_assert(sizeof(TensorOp) == 376, "TensorOp changed: feed the new field to fingerprintOf");
static_assert(sizeof(Loop) == 248, "Loop changed: feed the new field to fingerprintOf");
static_assert(sizeof(SymbolSource) == 56, "SymbolSource changed: feed the new field to fingerprintOf");
static_assert(sizeof(TileContext) == 176, "TileContext changed: feed the new field to fingerprintOf");
static_assert(sizeof(SourceLocation) == 40, "SourceLocation changed: feed the new field to fingerprintOf");

class GraphFingerprint {
public:
  explicit GraphFingerprint(const TensorGraph& graph) : m_graph(graph) {}

  StageKey make() {
    const TensorGraph& graph = m_graph;
    m_key.add(graph.kernelName);
    add(graph.kernelLocation);
    add(graph.body);
    addIds(graph.arguments);
    m_key.add(static_cast<std::int64_t>(graph.dynamicSymbols.size()));
    for (const SymbolSource& symbol : graph.dynamicSymbols)
      m_key.add(symbol.symbol).add(std::int64_t{symbol.argument}).add(std::int64_t{symbol.dim}).add(symbol.scale).add(
          symbol.offset);
    addIds(graph.elementReadArguments);
    m_key.add(graph.kernelOptions.dump());
    m_key.add(static_cast<std::int64_t>(graph.tensors().size()));
    for (const TensorValue& tensor : graph.tensors()) {
      m_key.add(std::int64_t{tensor.id}).add(tensor.name).add(static_cast<std::int64_t>(tensor.dtype));
      add(tensor.shape);
      m_key.add(static_cast<std::int64_t>(tensor.role)).add(std::int64_t{tensor.argumentIndex});
      m_key.add(std::int64_t{tensor.producer}).add(std::int64_t{tensor.base});
      add(tensor.offsets);
      add(tensor.validShape);
      add(tensor.location);
      m_key.add(std::int64_t{tensor.loop}).add(std::int64_t{tensor.reshapeOf}).add(std::int64_t{tensor.nzLayout});
    }
    m_key.add(static_cast<std::int64_t>(graph.ops().size()));
    for (const TensorOp& op : graph.ops()) {
      m_key.add(std::int64_t{op.id}).add(static_cast<std::int64_t>(op.kind));
      addIds(op.inputs);
      addIds(op.outputs);
      m_key.add(static_cast<std::int64_t>(op.attrs.size()));
      for (const auto& [name, value] : op.attrs) {
        m_key.add(name).add(static_cast<std::int64_t>(value.index()));
        add(value);
      }
      add(op.location);
      m_key.add(op.label);
      addNumbers(op.tiles.vec);
      add(op.tiles.vecSite);
      m_key.add(std::int64_t{op.tiles.cube.has_value()});
      if (const auto& cube = op.tiles.cube)
        m_key.add(cube->mL0).add(cube->mL1).add(cube->kL0).add(cube->kAL1).add(cube->kBL1).add(cube->nL0).add(
            cube->nL1).add(std::int64_t{cube->enableSplitK});
      add(op.tiles.cubeSite);
      m_key.add(op.passOptions.dump());
      m_key.add(std::int64_t{op.loop});
    }
    m_key.add(static_cast<std::int64_t>(graph.loops().size()));
    for (const Loop& loop : graph.loops()) {
      m_key.add(std::int64_t{loop.id}).add(loop.name).add(loop.indexSymbol);
      add(loop.start);
      add(loop.stop);
      add(loop.step);
      m_key.add(std::int64_t{loop.parallel}).add(std::int64_t{loop.submitBeforeLoop});
      addNumbers(loop.unrollList);
      m_key.add(static_cast<std::int64_t>(loop.bodies.size()));
      for (const LoopBody& body : loop.bodies) {
        m_key.add(body.unrollFactor);
        add(body.region);
      }
      m_key.add(std::int64_t{loop.parent});
      add(loop.location);
    }
    return m_key.key();
  }

private:
  void add(const SourceLocation& location) {
    m_key.add(location.file).add(std::int64_t{location.line}).add(std::int64_t{location.column});
  }
  // A constant as its value, anything else as its text; the flag keeps the
  // constant 7 and a symbol named "7" apart.
  void add(const SymbolicScalar& value) {
    if (auto constant = value.constantValue()) m_key.add(std::int64_t{0}).add(*constant);
    else m_key.add(std::int64_t{1}).add(value.str());
  }
  void add(const SymbolicShape& shape) {
    m_key.add(static_cast<std::int64_t>(shape.size()));
    for (const SymbolicScalar& dim : shape) add(dim);
  }
  void add(const AttributeValue& value) {
    std::visit(
        [this](const auto& v) {
          using T = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, std::int64_t>) m_key.add(std::int64_t{v});
          else if constexpr (std::is_same_v<T, double>) m_key.add(std::bit_cast<std::int64_t>(v));
          else if constexpr (std::is_same_v<T, std::string>) m_key.add(v);
          else if constexpr (std::is_same_v<T, DataType>) m_key.add(static_cast<std::int64_t>(v));
          else if constexpr (std::is_same_v<T, std::vector<std::int64_t>>) addNumbers(v);
          else add(v);  // SymbolicScalar, SymbolicShape
        },
        value);
  }
  void add(const Region& region) {
    m_key.add(static_cast<std::int64_t>(region.paths.size()));
    for (const Path& path : region.paths) {
      m_key.add(static_cast<std::int64_t>(path.conditions.size()));
      for (const Condition& condition : path.conditions) {
        add(condition.predicate);
        m_key.add(std::int64_t{condition.expected});
        add(condition.location);
      }
      m_key.add(static_cast<std::int64_t>(path.statements.size()));
      for (const Statement& statement : path.statements)
        m_key.add(static_cast<std::int64_t>(statement.kind)).add(std::int64_t{statement.id});
    }
  }
  template <typename Number> void addNumbers(const std::vector<Number>& numbers) {
    m_key.add(static_cast<std::int64_t>(numbers.size()));
    for (Number number : numbers) m_key.add(static_cast<std::int64_t>(number));
  }
  void addIds(const std::vector<std::int32_t>& ids) { addNumbers(ids); }

  const TensorGraph& m_graph;
  StageKeyBuilder m_key;
};

} // namespace

StageKey fingerprintOf(const TensorGraph& graph) { return GraphFingerprint(graph).make(); }

namespace {

void addPlaceToKey(StageKeyBuilder& key, const SourceLocation& place) {
  key.add(place.file).add(static_cast<std::int64_t>(place.line)).add(static_cast<std::int64_t>(place.column));
}

// What every pass may read besides the pass options.
StageKey stageBaseKey(const StageKey& graphKey, const CompileSettings& settings, bool keyedOnPlaces) {
  StageKeyBuilder key(graphKey);
  for (const auto& [name, value] : settings.bindings) key.add(name).add(value);
  key.add(settings.tileSettings.dump()).add(settings.partitionOverrides.dump());
  const TargetInfo& target = settings.target;
  key.add(target.name);
  for (std::int64_t capacity : target.capacityBytes) key.add(capacity);
  key.add(target.allocationGranularityBytes).add(std::int64_t{target.hasL0cToUb});
  key.add(std::int64_t{target.hasUbToL1});
  key.add(std::int64_t{target.aicCores}).add(std::int64_t{target.aivCores});
  key.add(settings.projectFile);
  if (keyedOnPlaces) {
    for (const auto& [setting, place] : settings.settingLocations) {
      key.add(setting);
      addPlaceToKey(key, place);
    }
    for (const SourceLocation& place : settings.partitionOverrideLocations) addPlaceToKey(key, place);
  }
  return key.key();
}

} // namespace

std::vector<StageKey> stageKeys(const StageKey& graphKey, const CompileSettings& settings,
                                const std::set<std::string>& disabledPasses, bool keyedOnPlaces) {
  std::vector<StageKey> keys;
  StageKey key = stageBaseKey(graphKey, settings, keyedOnPlaces);
  const nlohmann::ordered_json& given = settings.passOptions;
  for (const PassInfo& pass : tilePipeline()) {
    StageKeyBuilder next(key);
    next.add(pass.name);
    next.add(std::int64_t{!pass.required && disabledPasses.count(std::string(pass.name)) > 0});
    if (pass.options)
      for (const OptionInfo& option : pass.options()) {
        next.add(option.name);
        // "absent" is not a JSON text, so it cannot collide with a value.
        next.add(given.is_object() && given.contains(option.name) ? given[option.name].dump() : std::string("absent"));
      }
    key = next.key();
    keys.push_back(key);
  }
  return keys;
}

PassResultCache::PassResultCache(std::size_t keptStages, bool keyedOnPlaces)
    : m_kept(std::max<std::size_t>(1, keptStages)), m_keyedOnPlaces(keyedOnPlaces) {}

std::shared_ptr<const PassResultCache::Stage> PassResultCache::find(const StageKey& key) {
  std::lock_guard lock(m_mutex);
  auto found = m_stages.find(key);
  if (found == m_stages.end()) return nullptr;
  // Most recently used last.
  auto place = std::find(m_order.begin(), m_order.end(), key);
  if (place != m_order.end()) {
    m_order.erase(place);
    m_order.push_back(key);
  }
  return found->second;
}

void PassResultCache::keep(const StageKey& key, std::shared_ptr<const Stage> stage) {
  std::lock_guard lock(m_mutex);
  auto [where, added] = m_stages.insert_or_assign(key, std::move(stage));
  (void)where;
  if (added) m_order.push_back(key);
  while (m_order.size() > m_kept) {
    m_stages.erase(m_order.front());
    m_order.pop_front();
  }
}

std::size_t PassResultCache::size() const {
  std::lock_guard lock(m_mutex);
  return m_stages.size();
}

void PassResultCache::clear() {
  std::lock_guard lock(m_mutex);
  m_stages.clear();
  m_order.clear();
}

std::string passesRanSummary(const std::vector<PassRecord>& passes) {
  std::size_t reused = 0, ran = 0;
  std::string firstRun;
  for (const PassRecord& record : passes) {
    if (record.reused) ++reused;
    else if (!record.skipped && ran++ == 0) firstRun = record.name;
  }
  if (reused == 0) return "all " + std::to_string(ran) + " passes ran";
  if (ran == 0) return "no pass ran (" + std::to_string(reused) + " reused)";
  return std::to_string(ran) + " passes ran (" + firstRun + " onwards), " + std::to_string(reused) + " reused";
}

} // namespace pto
