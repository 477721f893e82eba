"""The Dask side of `pto tune --dask ADDRESS`.

`pto` starts this script with a socket on its stdin and stdout and speaks
JSON lines with it. `pto` keeps the sweep (the strategy, the pruning, the
result cache, the result file); this script only carries points to a Dask
cluster's workers and their results back:

  pto -> bridge  {"type": "hello", "scheduler": ..., "pto": ..., "project": ..., "timeout": ...,
                  "setup": {"document": ..., "kernel": ...}}
                 {"type": "batch", "points": [{"id": 3, "settings": {"dotted.path": value}}, ...]}
  bridge -> pto  {"type": "ready", "workers": 2, "threads": 2}
                 {"type": "result", "points": [{"id": 3, "status": "ok", "makespan_us": ..., "busy_us": ...}], "worker": ...}
                 {"type": "workers", "workers": 1, "threads": 1}
                 {"type": "error", "message": ...}

The end of stdin ends the sweep at once: `pto` closes it only when it has
every result it waits for, or when it stops waiting (a cancel, an error, its
own end), so what is still queued or running on the cluster is cancelled and
the client closes.

Each Dask task runs `pto tune PROJECT --serve-points` on its worker and
hands it a batch. That process stays up for the worker's later batches, so
a worker traces the kernel once and keeps its compilations between batches.
When a worker dies, the scheduler runs its tasks again on the others; the
result of a point depends on the point alone, so a sweep that lost a worker
gives the result it would have given without.
"""

import json
import os
import queue
import sys
import threading


def _evaluate_batch(pto, project, timeout, setup, points):
    """Runs on a worker. Self-contained on purpose: as part of __main__ it is
    sent by value, so workers need no PTO Studio Python package, only `pto`
    at the path the sweep names and the project folder at its path."""
    import json
    import os
    import socket
    import subprocess
    import sys
    import threading

    host = socket.gethostname()
    if not os.path.isdir(project):
        raise RuntimeError(f"worker on {host} cannot see the project folder {project}: every worker must see it at "
                           f"the path the sweep names (a shared file system)")
    if not os.access(pto, os.X_OK):
        raise RuntimeError(f"worker on {host} has no pto executable at {pto}: install PTO Studio at the same "
                           f"path on every worker")
    # One server per worker thread, kept in the worker process between tasks.
    servers = sys.__dict__.setdefault("_pto_tune_servers", {})
    key = (pto, project, threading.get_ident())
    server = servers.get(key)
    if server is None or server.poll() is not None:
        server = subprocess.Popen([pto, "tune", project, "--serve-points", "--trust", "--timeout", str(timeout)],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                  text=True)
        servers[key] = server
    server.stdin.write(json.dumps({"setup": setup, "points": points}) + "\n")
    server.stdin.flush()
    line = server.stdout.readline()
    if not line:
        server.wait()
        raise RuntimeError(f"pto tune --serve-points on {host} ended (exit code {server.returncode}) without "
                           f"answering")
    answer = json.loads(line)
    if "error" in answer:
        raise RuntimeError(f"pto tune --serve-points on {host}: {answer['error']}")
    answer["worker"] = host
    return answer


class Bridge:
    def __init__(self, out):
        self._out = out
        self._lock = threading.Lock()
        self.closed = False  # pto went away

    def emit(self, message):
        with self._lock:
            try:
                self._out.write(json.dumps(message) + "\n")
                self._out.flush()
            except OSError:
                self.closed = True


def _cluster_size(client):
    workers = client.scheduler_info().get("workers", {})
    return len(workers), sum(w.get("nthreads", 1) for w in workers.values())


def main():
    out = os.fdopen(os.dup(1), "w")
    # Anything a library prints goes to stderr, never into the protocol.
    sys.stdout = sys.stderr
    bridge = Bridge(out)
    line = sys.stdin.readline()
    if not line:
        return 0
    hello = json.loads(line)
    try:
        import distributed
    except ImportError:
        bridge.emit({"type": "error", "message": f"{sys.executable} has no Dask: install Debian's "
                                                 f"python3-distributed (apt install python3-distributed)"})
        return 1
    import logging
    logging.getLogger("distributed").setLevel(logging.ERROR)
    try:
        client = distributed.Client(hello["scheduler"], timeout=hello.get("connect_timeout", 15),
                                    set_as_default=False)
    except Exception as error:  # noqa: BLE001 - every failure to connect is reported the same way
        bridge.emit({"type": "error", "message": f"cannot reach the Dask scheduler at {hello['scheduler']}: {error}; is "
                                                 f"a scheduler running there (`dask scheduler`) and reachable "
                                                 f"from this machine?"})
        return 1
    workers, threads = _cluster_size(client)
    bridge.emit({"type": "ready", "workers": workers, "threads": threads})

    # The project document and kernel text the sweep traced go with every
    # task (a few kilobytes): a worker that joins late, or replaces one that
    # died, needs nothing else.
    setup = hello.get("setup")
    done = queue.Queue()
    pending = set()
    state = {"ended": False}
    state_lock = threading.Lock()

    def read_requests():
        for request_line in sys.stdin:
            request = json.loads(request_line)
            if request.get("type") != "batch":
                continue
            future = client.submit(_evaluate_batch, hello["pto"], hello["project"], hello.get("timeout", 60),
                                   setup, request["points"], pure=False)
            with state_lock:
                pending.add(future)
            future.add_done_callback(done.put)
        with state_lock:
            state["ended"] = True
        done.put(None)

    threading.Thread(target=read_requests, daemon=True).start()
    last_size = (workers, threads)
    while True:
        try:
            future = done.get(timeout=1.0)
        except queue.Empty:
            future = None
        with state_lock:
            if state["ended"] or bridge.closed:
                # pto has stopped listening: drop what is left on the cluster.
                client.cancel(list(pending))
                break
            if future is None or future not in pending:
                future = None
            else:
                pending.discard(future)
        if future is not None:
            if future.status == "finished":
                answer = future.result()
                bridge.emit({"type": "result", "points": answer["points"], "worker": answer.get("worker", "")})
            elif future.status == "error":
                bridge.emit({"type": "error", "message": str(future.exception())})
                break
        size = _cluster_size(client)
        if size != last_size:
            last_size = size
            bridge.emit({"type": "workers", "workers": size[0], "threads": size[1]})
    client.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
