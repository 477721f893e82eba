// The tuner's result cache over the project's run ledger (Tuner.h says what
// a point's key fingerprints). A sweep asks it for a batch of points before
// simulating them and hands it the batch's results after; both happen on the
// sweep's own thread, around the parallel simulation. A ledger that cannot
// be read or written costs the cache (one warning), never the sweep.
#pragma once

#include "analysis/tuner/Tuner.h"

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace pto {

class TuneResultCache {
public:
  // Without options.cache it keeps and finds nothing. The traced graph's
  // fingerprint comes from `simulator`, asked only with a cache.
  TuneResultCache(const TracedProject& traced, const TuneOptions& options, const VariantSimulator& simulator);

  // Fills in the points of `which` the cache has; returns those left to
  // simulate. Their keys are remembered for keep().
  std::vector<std::size_t> fill(const TuneSpace& space, std::vector<TunePoint>& points,
                                const std::vector<std::size_t>& which, DiagnosticEngine& diags);
  // Keeps the results of `simulated` (a cancelled point is not a result).
  void keep(const TuneSpace& space, const std::vector<TunePoint>& points, const std::vector<std::size_t>& simulated,
            DiagnosticEngine& diags);

  // The sweep's baseline (the project's own settings), kept under the key of
  // the project's document as a point's is: a rerun takes it from here too.
  // nullopt when the cache does not have it (or is not read).
  std::optional<TunePointOutcome> findBaseline(DiagnosticEngine& diags);
  void keepBaseline(const TunePointOutcome& outcome, DiagnosticEngine& diags);

  // The reason of a point a cancelled sweep never finished: not kept.
  static constexpr const char* kCancelled = "cancelled";

private:
  // Two 64-bit FNV-1a hashes of `text` (the second of it salted): 128 bits,
  // so that a million kept points do not collide in practice.
  static std::string fingerprint(const std::string& text);
  // Empty when the point's machine cannot be found (it will fail to
  // simulate, and is simulated again next time).
  std::string keyOfDocument(nlohmann::json document);
  // The key of the project's own document ("" when it has none), made once.
  const std::string& baselineKey();
  void warnOnce(const DiagnosticEngine& from, DiagnosticEngine& diags);

  const TracedProject& m_traced;
  const TuneOptions& m_options;
  std::string m_context;
  std::map<std::string, std::string> m_machines;  // machine name -> fingerprint of its file ("" when not found)
  std::map<std::size_t, std::string> m_keyOfPoint;  // a looked-up point's index -> its key ("" when it has none)
  std::optional<std::string> m_baselineKey;
  bool m_warned = false;
};

} // namespace pto
