// The points of a sweep simulated on a Dask cluster (`pto tune --dask`, the
// IDE's tuner with a cluster address). A small Python bridge
// (pto_dask/bridge.py, beside the pypto package) holds the Dask client; this
// process talks to it over a socket in JSON lines and keeps all the rest of
// the sweep: the strategy, pruning, the result cache and the result file.
// Each worker runs `pto tune PROJECT --serve-points`, the same engine as a
// local sweep, so a point's result does not depend on where it ran.
#pragma once

#include "analysis/tuner/Tuner.h"

#include <filesystem>
#include <memory>
#include <optional>
#include <string>

namespace pto {

struct DaskConnection {
  std::string scheduler;          // "tcp://HOST:PORT"
  std::filesystem::path project;  // the project folder, at the path every worker sees it
  std::filesystem::path pto;      // the pto executable, at the path every worker has it
  // What the workers trace: the project document and, when it is not the
  // file on disk, the kernel's text (the IDE's unsaved edits).
  nlohmann::json document;
  std::optional<std::string> kernelText;
  int batchSize = 4;              // points per Dask task
  double traceTimeoutSeconds = 60;
  double connectSeconds = 10;

  // For a sweep of `traced` on the cluster at `scheduler`: its project
  // folder, document and kernel text, and the `pto` beside this program.
  static DaskConnection forSweep(const TracedProject& traced, std::string scheduler);
};

// Starts the bridge and connects it to the scheduler; null with an error
// naming what to do when Python's Dask is missing or the scheduler cannot be
// reached.
std::unique_ptr<RemotePointEvaluator> connectDask(const DaskConnection& connection, DiagnosticEngine& diags);

} // namespace pto
