// Stage keys and the kept stages of the pass pipeline.
#include "compiler/passes/PassResultCache.h"

#include "compiler/ir/TensorGraphJson.h"

#include <algorithm>

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

StageKey fingerprintOf(const TensorGraph& graph) { return StageKeyBuilder().add(printTensorGraphJson(graph)).key(); }

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
