#include "runtime/Executor.h"

#include <array>
#include <mutex>
#include <stdexcept>
#include <string>

namespace pto {
namespace {

// The names made so far, by index. An entry is written once, under the
// lock, before its index is handed out, and never changes: reading a name
// whose index one holds needs no lock. Index 0 is the empty name, so a
// default PipeInterval names no pipe.
struct PipeNameTable {
  std::mutex lock;
  std::array<std::string, PipeName::kMostNames> names;
  std::size_t count = 1;
};

PipeNameTable& table() {
  static PipeNameTable* const names = new PipeNameTable;  // never destroyed: names outlive static schedules
  return *names;
}

} // namespace

PipeName::PipeName(std::string_view text) {
  PipeNameTable& names = table();
  std::lock_guard<std::mutex> hold(names.lock);
  for (std::size_t i = 0; i < names.count; ++i) {
    if (names.names[i] == text) {
      m_index = static_cast<std::uint8_t>(i);
      return;
    }
  }
  // Only a program that makes pipe names from data could get here: the
  // executors' names come from fixed tables of a few each.
  if (names.count == kMostNames) throw std::length_error("more than 255 distinct pipe names");
  names.names[names.count] = std::string(text);
  m_index = static_cast<std::uint8_t>(names.count++);
}

std::string_view PipeName::text() const { return table().names[m_index]; }

} // namespace pto
