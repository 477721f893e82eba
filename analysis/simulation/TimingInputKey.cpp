// The fingerprint of a timing simulation's inputs: every field of the PTO
// programs, the execute graph and the GM layouts, in order.
#include "analysis/simulation/TimingInputKey.h"

#include "npusim/TimingRun.h"

namespace pto {
namespace {

// A field added to one of these records must be hashed below, or two
// compilations differing only in it would share a simulation. The sizes
// hold for the 64-bit libstdc++ builds PTO Studio ships; elsewhere the
// check is skipped.
#if defined(__GLIBCXX__) && defined(__LP64__)
static_assert(sizeof(PtoOperand) == 80, "PtoOperand changed: hash the new field in timingInputKey");
static_assert(sizeof(PtoInstruction) == 88, "PtoInstruction changed: hash the new field in timingInputKey");
static_assert(sizeof(PtoProgram) == 72, "PtoProgram changed: hash the new field in timingInputKey");
static_assert(sizeof(ConcreteRegion) == 72, "ConcreteRegion changed: hash the new field in timingInputKey");
static_assert(sizeof(Task) == 144, "Task changed: hash the new field in timingInputKey");
static_assert(sizeof(ByteAlias) == 72, "ByteAlias changed: hash the new field in timingInputKey");
static_assert(sizeof(LoopBarrier) == 12, "LoopBarrier changed: hash the new field in timingInputKey");
static_assert(sizeof(ExecuteGraph) == 80, "ExecuteGraph changed: hash the new field in timingInputKey");
static_assert(sizeof(GmTensorLayout) == 40, "GmTensorLayout changed: hash the new field in timingInputKey");
#endif

class TimingInputHasher {
public:
  void add(std::int64_t value) { m_key.add(value); }
  void add(std::string_view text) { m_key.add(text); }
  template <typename Enum> void addEnum(Enum value) { add(static_cast<std::int64_t>(value)); }
  // A list: its length first, so that [a, b] + [c] and [a] + [b, c] differ.
  template <typename Item, typename AddItem> void addList(const std::vector<Item>& items, AddItem addItem) {
    add(static_cast<std::int64_t>(items.size()));
    for (const Item& item : items) addItem(item);
  }
  void addNumbers(const std::vector<std::int64_t>& values) {
    addList(values, [this](std::int64_t value) { add(value); });
  }
  void addIds(const std::vector<TaskId>& ids) {
    addList(ids, [this](TaskId id) { add(id); });
  }

  void add(const PtoOperand& operand) {
    addEnum(operand.memory);
    add(operand.offsetBytes);
    add(operand.bytes);
    addNumbers(operand.shape);
    addEnum(operand.dtype);
    add(operand.gmRegion);
    add(operand.gmAlias);
    add(operand.gmRunBytes);
    add(std::int64_t{operand.gmNz});
  }
  void add(const PtoInstruction& instruction) {
    addEnum(instruction.opcode);
    addEnum(instruction.pipe);
    addList(instruction.dst, [this](const PtoOperand& operand) { add(operand); });
    addList(instruction.srcs, [this](const PtoOperand& operand) { add(operand); });
    add(instruction.tileOp);
    addEnum(instruction.opKind);
    add(instruction.bytes);
    add(instruction.elements);
    addEnum(instruction.accumulate);
    addEnum(instruction.srcPipe);
    addEnum(instruction.dstPipe);
    add(instruction.eventId);
  }
  void add(const PtoProgram& program) {
    add(program.programId);
    addEnum(program.coreType);
    add(program.subgraph);
    addList(program.instructions, [this](const PtoInstruction& instruction) { add(instruction); });
    for (int count : program.pipeCounts) add(count);
  }
  void add(const ConcreteRegion& region) {
    add(region.tensor);
    addNumbers(region.offsets);
    addNumbers(region.shape);
    add(static_cast<std::int64_t>(region.instance));
    add(region.gathered ? 1 : 0);
    add(region.scattered ? 1 : 0);
  }
  void add(const Task& task) {
    add(task.id);
    add(task.subgraph);
    add(task.programId);
    addEnum(task.coreType);
    addList(task.loopIndices, [this](const std::pair<std::string, std::int64_t>& index) {
      add(std::string_view(index.first));
      add(index.second);
    });
    add(task.rootCall);
    addList(task.reads, [this](const ConcreteRegion& region) { add(region); });
    addList(task.writes, [this](const ConcreteRegion& region) { add(region); });
    addIds(task.predecessors);
    addIds(task.successors);
  }
  void add(const ExecuteGraph& graph) {
    addList(graph.tasks, [this](const Task& task) { add(task); });
    add(static_cast<std::int64_t>(graph.edgeCount));
    addList(graph.aliases, [this](const ByteAlias& alias) {
      add(alias.alias);
      add(alias.storage);
      addNumbers(alias.aliasShape);
      addNumbers(alias.storageShape);
      add(alias.aliasElementBytes);
      add(alias.storageElementBytes);
    });
    addList(graph.barriers, [this](const LoopBarrier& barrier) {
      add(barrier.firstTask);
      add(barrier.loop);
      add(barrier.ordersData ? 1 : 0);
    });
  }
  void add(const GmTensorLayout& layout) {
    addNumbers(layout.shape);
    add(layout.elementBytes);
    add(layout.bytesOf);
  }

  StageKey key() const { return m_key.key(); }

private:
  StageKeyBuilder m_key;
};

} // namespace

StageKey timingInputKey(const Compilation& compilation) {
  TimingInputHasher hasher;
  hasher.add(std::string_view("timing input 1"));
  hasher.addList(compilation.programs, [&](const PtoProgram& program) { hasher.add(program); });
  hasher.add(compilation.tasks);
  hasher.addList(gmLayoutsOf(compilation), [&](const GmTensorLayout& layout) { hasher.add(layout); });
  return hasher.key();
}

} // namespace pto
