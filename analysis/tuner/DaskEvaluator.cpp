#include "analysis/tuner/DaskEvaluator.h"

#include "compiler/frontend/KernelTracer.h"
#include "core/InstallPaths.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <poll.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char** environ;

namespace pto {
namespace {

using json = nlohmann::json;

// The interpreter the bridge runs on: Debian's, where python3-distributed
// installs Dask (PTO_DASK_PYTHON picks another).
std::string bridgePython() {
  if (const char* chosen = std::getenv("PTO_DASK_PYTHON"); chosen && *chosen) return chosen;
  return PTO_PYTHON_EXECUTABLE;
}

class DaskEvaluator final : public RemotePointEvaluator {
public:
  DaskEvaluator(const DaskConnection& connection) : m_connection(connection) {}

  ~DaskEvaluator() override {
    if (m_socket >= 0) {
      // The end of its stdin ends the bridge, which closes its client and so
      // cancels what is still queued on the cluster.
      ::shutdown(m_socket, SHUT_WR);
      ::close(m_socket);
    }
    if (m_pid > 0) {
      for (int waited = 0; waited < 50; ++waited) {
        if (::waitpid(m_pid, nullptr, WNOHANG) == m_pid) {
          m_pid = -1;
          break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
      if (m_pid > 0) {
        ::kill(m_pid, SIGKILL);
        ::waitpid(m_pid, nullptr, 0);
      }
    }
    if (!m_errorFile.empty()) std::filesystem::remove(m_errorFile);
  }

  bool start(DiagnosticEngine& diags) {
    const std::filesystem::path script = pyptoPackageDirectory() / "pto_dask" / "bridge.py";
    if (!std::filesystem::exists(script))
      return fail(diags, "the Dask bridge " + script.string() + " is missing: reinstall PTO Studio");
    int ends[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0)
      return fail(diags, std::string("cannot make a socket for the Dask bridge: ") + std::strerror(errno));
    m_socket = ends[0];
    // The bridge's stderr (a Python error, Dask's own complaints) goes to a
    // file that is read back when the bridge fails.
    // In $TMPDIR (else /tmp), where the user's temporary files go.
    std::error_code noTemp;
    std::string errorTemplate = (std::filesystem::temp_directory_path(noTemp) / "pto-dask-bridge-XXXXXX").string();
    const int errorFd = ::mkstemp(errorTemplate.data());
    if (errorFd >= 0) m_errorFile = errorTemplate;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, ends[1], 0);
    posix_spawn_file_actions_adddup2(&actions, ends[1], 1);
    if (errorFd >= 0) posix_spawn_file_actions_adddup2(&actions, errorFd, 2);
    const std::string python = bridgePython();
    std::string scriptText = script.string();
    std::vector<char*> argv{const_cast<char*>(python.c_str()), const_cast<char*>("-u"), scriptText.data(), nullptr};
    const int spawned = ::posix_spawn(&m_pid, python.c_str(), &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(ends[1]);
    if (errorFd >= 0) ::close(errorFd);
    if (spawned != 0) {
      m_pid = -1;
      return fail(diags, "cannot start " + python + " for the Dask bridge: " + std::strerror(spawned));
    }
    send({{"type", "hello"},
          {"scheduler", m_connection.scheduler},
          {"pto", m_connection.pto.string()},
          {"project", m_connection.project.string()},
          {"timeout", m_connection.traceTimeoutSeconds},
          {"setup", {{"document", m_connection.document},
                     {"kernel", m_connection.kernelText ? json(*m_connection.kernelText) : json()}}},
          {"connect_timeout", m_connection.connectSeconds}});
    // The bridge answers once connected, or with why not.
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::duration<double>(m_connection.connectSeconds + 30.0);
    while (m_workers < 0) {
      if (std::chrono::steady_clock::now() > deadline)
        return fail(diags, "the Dask bridge did not connect to " + m_connection.scheduler + " in time");
      if (!pump(200, diags)) return false;
    }
    return true;
  }

  void submit(std::size_t id, const nlohmann::json& settings) override {
    m_held.push_back({{"id", id}, {"settings", settings}});
    if (static_cast<int>(m_held.size()) >= std::max(1, m_connection.batchSize)) flush();
  }

  std::optional<Result> next(const std::function<bool()>& cancelled, DiagnosticEngine& diags) override {
    flush();
    while (m_ready.empty()) {
      if (cancelled && cancelled()) return std::nullopt;
      if (!pump(200, diags)) return std::nullopt;
    }
    Result result = m_ready.front();
    m_ready.pop_front();
    return result;
  }

  std::string where() const override {
    return "Dask cluster at " + m_connection.scheduler + " (" + std::to_string(m_workers) +
           (m_workers == 1 ? " worker, " : " workers, ") + std::to_string(m_threads) +
           (m_threads == 1 ? " thread)" : " threads)");
  }

private:
  void flush() {
    if (m_held.empty()) return;
    send({{"type", "batch"}, {"points", std::move(m_held)}});
    m_held = json::array();
  }

  void send(const json& message) {
    const std::string line = message.dump() + "\n";
    for (std::size_t at = 0; at < line.size();) {
      // MSG_NOSIGNAL: a bridge that died is an error to report, not a SIGPIPE.
      const ssize_t wrote = ::send(m_socket, line.data() + at, line.size() - at, MSG_NOSIGNAL);
      if (wrote <= 0) {
        if (wrote < 0 && errno == EINTR) continue;
        return;  // the next read sees the bridge gone and says why
      }
      at += static_cast<std::size_t>(wrote);
    }
  }

  // Reads what the bridge has sent within `milliseconds`; false (with an
  // error) when it reported one or ended.
  bool pump(int milliseconds, DiagnosticEngine& diags) {
    pollfd watch{m_socket, POLLIN, 0};
    const int ready = ::poll(&watch, 1, milliseconds);
    if (ready < 0 && errno != EINTR) return fail(diags, std::string("lost the Dask bridge: ") + std::strerror(errno));
    if (ready <= 0) return true;
    char buffer[65536];
    const ssize_t got = ::recv(m_socket, buffer, sizeof buffer, 0);
    if (got <= 0) return fail(diags, "the Dask bridge ended" + bridgeErrors());
    m_input.append(buffer, static_cast<std::size_t>(got));
    for (std::size_t end = m_input.find('\n'); end != std::string::npos; end = m_input.find('\n')) {
      const std::string line = m_input.substr(0, end);
      m_input.erase(0, end + 1);
      if (!handle(line, diags)) return false;
    }
    return true;
  }

  bool handle(const std::string& line, DiagnosticEngine& diags) {
    const json message = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!message.is_object()) return fail(diags, "the Dask bridge sent something that is not JSON: " + line.substr(0, 200));
    const std::string type = message.value("type", "");
    if (type == "error") return fail(diags, message.value("message", "the Dask bridge failed"));
    if (type == "ready" || type == "workers") {
      m_workers = message.value("workers", 0);
      m_threads = message.value("threads", 0);
    } else if (type == "result") {
      for (const json& point : message.value("points", json::array())) {
        Result result;
        result.id = point.value("id", std::size_t{0});
        result.outcome.status = point.value("status", "failed");
        result.outcome.reason = point.value("reason", "");
        result.outcome.makespanUs = point.value("makespan_us", 0.0);
        result.outcome.busyUs = point.value("busy_us", 0.0);
        m_ready.push_back(std::move(result));
      }
    }
    return true;
  }

  // The end of the bridge's stderr, to say why it stopped.
  std::string bridgeErrors() const {
    std::ifstream in(m_errorFile);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    if (text.empty()) return "";
    const std::size_t lastLine = text.rfind('\n');
    return ": " + (lastLine == std::string::npos ? text : text.substr(lastLine + 1));
  }

  bool fail(DiagnosticEngine& diags, const std::string& message) {
    diags.error(SourceLocation{"--dask"}) << message;
    return false;
  }

  DaskConnection m_connection;
  pid_t m_pid = -1;
  int m_socket = -1;
  std::filesystem::path m_errorFile;
  std::string m_input;
  json m_held = json::array();
  std::deque<Result> m_ready;
  int m_workers = -1;
  int m_threads = 0;
};

} // namespace

DaskConnection DaskConnection::forSweep(const TracedProject& traced, std::string scheduler) {
  DaskConnection connection;
  connection.scheduler = std::move(scheduler);
  connection.project = std::filesystem::absolute(traced.project.directory());
  connection.pto = executableDirectory() / "pto";
  connection.document = nlohmann::json::parse(traced.project.document.dump());
  connection.kernelText = traced.sourceText;
  return connection;
}

std::unique_ptr<RemotePointEvaluator> connectDask(const DaskConnection& connection, DiagnosticEngine& diags) {
  auto evaluator = std::make_unique<DaskEvaluator>(connection);
  if (!evaluator->start(diags)) return nullptr;
  return evaluator;
}

} // namespace pto
