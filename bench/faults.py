"""Fault injection: N collector uploads while Redis, PostgreSQL and the worker are each killed
and started again once.

    .venv/bin/python bench/faults.py [--uploads 60] [--interval 0.4] [--threads 4]

A throwaway stack of its own; nothing shared is touched (the Redis on 6379 and the PostgreSQL
on 5432 others use are never stopped):
  - Redis on a free port, WITHOUT persistence: what it held dies with it, on purpose. The broker
    is a notification; the database is the record, and the beat sweep rebuilds the queue;
  - PostgreSQL: a cluster made by initdb in a temporary folder, on a free port;
  - gunicorn (the real web server) and `celery worker -B` (the sweep every 5 s, short time
    limits so a parse cut by the kill is taken up again within a minute or two).
Uploads go out at a steady pace (one job each). A quarter of the way in, Redis is SIGKILLed and
started 3 s later; half-way, PostgreSQL stops in immediate mode (a crash: no checkpoint, no
goodbye to clients) and starts 3 s later; at three quarters, the worker's process group is
SIGKILLed (a node lost mid-parse) and started 2 s later.

Prints: accepted (202), refused with 503 (a clear answer with Retry-After, nothing stored: the
collector sends again), any other answer, lost (accepted but not stored intact, or never
diagnosed: must be 0), and the time until every accepted incident was ready. Exit status 0
only when nothing was lost and nothing got an answer other than 202 or 503.
"""
from __future__ import annotations

import argparse
import glob
import hashlib
import http.client
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from load import post_bundle, shared_folder, small_bundle  # noqa: E402 - sibling benchmark helpers
from pipeline import PY, REPO, free_port, run, wait_until_listening  # noqa: E402

SAMPLE = "corpus/real/nccl-290/log.txt"


def _pg_bin() -> Path:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), key=lambda p: int(p.split("/")[4]))
    if found:
        return Path(found[-1]).parent
    pg_ctl = shutil.which("pg_ctl")
    if pg_ctl is None:
        raise SystemExit("PostgreSQL server binaries (pg_ctl, initdb) are not installed")
    return Path(pg_ctl).parent


class Postgres:
    """A cluster of its own: initdb in a temporary folder, listening on a free port."""

    def __init__(self, root: Path) -> None:
        self.bin = _pg_bin()
        self.data = root / "pgdata"
        self.port = free_port()
        self.log = root / "postgres.log"
        # The server refuses to run as root: as the postgres user, when we are root.
        self.as_user = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        self.data.mkdir()
        if self.as_user:
            shutil.chown(root, "postgres")
            shutil.chown(self.data, "postgres")
        self._pg("initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8")

    @property
    def url(self) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/postgres"

    def _pg(self, tool: str, *args: str) -> None:
        done = subprocess.run([*self.as_user, str(self.bin / tool), *args], capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise SystemExit(f"{tool} failed:\n{done.stdout[-1500:]}\n{done.stderr[-1500:]}")

    def start(self) -> None:
        options = f"-p {self.port} -k {self.data} -c listen_addresses=127.0.0.1 -c max_connections=200"
        self._pg("pg_ctl", "start", "-w", "-D", str(self.data), "-l", str(self.log), "-o", options)

    def crash(self) -> None:
        self._pg("pg_ctl", "stop", "-D", str(self.data), "-m", "immediate")

    def stop(self) -> None:
        if (self.data / "postmaster.pid").exists():
            self._pg("pg_ctl", "stop", "-D", str(self.data), "-m", "fast")


class Redis:
    """No persistence, as the worst case: a restart comes back empty."""

    def __init__(self, root: Path) -> None:
        self.port = free_port()
        self.root = root
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", str(self.root)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_until_listening(self.port, self.proc, self.root / "no-log")

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


class Worker:
    def __init__(self, env: dict[str, str], log: Path) -> None:
        self.env = env
        self.log = log
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen(
                [PY, "-m", "celery", "-A", "triage", "worker", "-B", "--concurrency=2", "--loglevel=WARNING",
                 "--without-gossip", "--without-mingle", "--without-heartbeat"],
                cwd=REPO, env=self.env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--uploads", type=int, default=60)
    parser.add_argument("--interval", type=float, default=0.4, help="seconds between two uploads")
    parser.add_argument("--threads", type=int, default=4, help="uploads in flight at most")
    parser.add_argument("--timeout", type=float, default=300, help="seconds to wait for every verdict")
    args = parser.parse_args()

    log = (shared_folder() / SAMPLE).read_bytes()
    bundles = [(f"faults-{i}", f"node-{i}", small_bundle(log, i, i)) for i in range(args.uploads)]
    root = Path(tempfile.mkdtemp(prefix="nccl-triage-faults-"))
    media = root / "media"
    postgres, redis_server = Postgres(root), Redis(root)
    env = {
        **os.environ, "DJANGO_SETTINGS_MODULE": "triage.settings", "DEBUG": "0", "SECRET_KEY": "bench-faults-only",
        "ALLOWED_HOSTS": "127.0.0.1", "SECURE_COOKIES": "0", "DATABASE_URL": postgres.url,
        "REDIS_URL": redis_server.url, "MEDIA_ROOT": str(media), "LOG_LEVEL": "WARNING",
        "TRIAGE_REQUEUE_AFTER_SECONDS": "5", "TRIAGE_PARSE_SOFT_TIME_LIMIT": "20", "TRIAGE_PARSE_TIME_LIMIT": "25",
        "CELERY_VISIBILITY_TIMEOUT": "30", "CELERY_UNACKED_RESTORE_INTERVAL": "1",
        "CELERY_UNACKED_RESTORE_THROTTLE": "1", "CELERY_BEAT_SCHEDULE_FILE": str(root / "beat-schedule"),
        "TRIAGE_UPLOAD_RATE_LIMIT": "0",
    }
    web: subprocess.Popen[bytes] | None = None
    worker = Worker(env, root / "worker.log")
    ok = False
    try:
        postgres.start()
        redis_server.start()
        run(env, "migrate", "--noinput", "-v", "0")
        token = run(env, "apitoken", "create", "--name", "faults").strip()
        port = free_port()
        with (root / "web.log").open("wb") as out:
            web = subprocess.Popen(
                [PY, "-m", "gunicorn", "triage.wsgi:application", "--bind", f"127.0.0.1:{port}", "--workers", "2",
                 "--worker-class", "gthread", "--threads", "4", "--timeout", "120"],
                cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        wait_until_listening(port, web, root / "web.log")
        worker.start()

        faults = {
            args.uploads // 4: ("Redis SIGKILLed, back after 3 s", redis_server.kill, 3.0, redis_server.start),
            args.uploads // 2: ("PostgreSQL crashed (immediate stop), back after 3 s", postgres.crash, 3.0,
                                postgres.start),
            3 * args.uploads // 4: ("worker SIGKILLed (process group), back after 2 s", worker.kill, 2.0, worker.start),
        }
        injected: list[threading.Thread] = []

        def inject(what: str, kill, pause: float, start) -> None:  # type: ignore[no-untyped-def]
            kill()
            print(f"  fault: {what}", flush=True)
            time.sleep(pause)
            start()

        results: list[tuple[int, dict[str, str]]] = [(0, {})] * len(bundles)

        def send(i: int) -> None:
            job, host, data = bundles[i]
            try:
                status, body, _ = post_bundle(port, token, data, job, host)
            except OSError as e:
                status, body = 0, {"error": repr(e)}
            results[i] = (status, body)

        started = time.monotonic()
        with ThreadPoolExecutor(max_workers=args.threads) as pool:
            for i in range(len(bundles)):
                if i in faults:
                    thread = threading.Thread(target=inject, args=faults[i])
                    thread.start()
                    injected.append(thread)
                pool.submit(send, i)
                time.sleep(args.interval)
        for thread in injected:
            thread.join()
        sent_s = time.monotonic() - started

        accepted = [i for i, (status, _) in enumerate(results) if status == 202]
        refused = [i for i, (status, body) in enumerate(results) if status == 503]
        other = [(status, body.get("error")) for status, body in results if status not in (202, 503)]
        incidents = {i: results[i][1]["incident"] for i in accepted}

        states: dict[int, str] = {}
        while time.monotonic() - started < sent_s + args.timeout:
            for i, incident in incidents.items():
                if states.get(i) != "ready":
                    states[i] = _status(port, token, incident)
            if all(states.get(i) == "ready" for i in incidents):
                break
            time.sleep(0.5)
        settled_s = time.monotonic() - started
        lost = _lost(postgres.url, media, [bundles[i] for i in accepted],
                     {i for i in incidents if states.get(i) != "ready"})

        print(f"uploads: {len(bundles)} over {sent_s:.0f} s with Redis, PostgreSQL and the worker each killed once")
        print(f"accepted: {len(accepted)}")
        print(f"refused with 503: {len(refused)}")
        print(f"other answers: {len(other)} {other[:3]}")
        print(f"lost: {lost}")
        print(f"every accepted incident ready {settled_s - sent_s:.1f} s after the last upload "
              f"({settled_s:.1f} s after the first)")
        ok = lost == 0 and not other
        if not ok:
            print(f"worker log tail:\n{(root / 'worker.log').read_text(errors='replace')[-3000:]}")
            print(f"web log tail:\n{(root / 'web.log').read_text(errors='replace')[-3000:]}")
    finally:
        if web is not None and web.poll() is None:
            os.killpg(web.pid, signal.SIGTERM)
            web.wait(30)
        worker.kill()
        redis_server.kill()
        postgres.stop()
        shutil.rmtree(root, ignore_errors=True)
    print("OK" if ok else "FAILED")
    sys.exit(0 if ok else 1)


def _status(port: int, token: str, incident: str) -> str:
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.request("GET", f"/api/v1/incidents/{incident}", headers={"Authorization": f"Bearer {token}"})
        status = json.loads(conn.getresponse().read()).get("status", "?")
        conn.close()
        return str(status)
    except (OSError, ValueError):
        return "?"


def _lost(database_url: str, media: Path, accepted: list[tuple[str, str, bytes]], unsettled: set[int]) -> int:
    """Accepted uploads whose bundle is not in the database and on disk intact, or whose
    incident never got a diagnosis covering it."""
    import psycopg

    with psycopg.connect(database_url) as conn:
        stored = {
            (job, host): (sha, name, diagnosed)
            for job, host, sha, name, diagnosed in conn.execute(
                "SELECT i.job, b.host, b.sha256, b.file, d.revision >= i.revision FROM incidents_bundle b "
                "JOIN incidents_incident i ON i.id = b.incident_id "
                "LEFT JOIN incidents_diagnosis d ON d.incident_id = i.id"
            )
        }
    lost = 0
    for job, host, data in accepted:
        found = stored.get((job, host))
        path = media / found[1] if found else None
        if (
            found is None or not found[2] or found[0] != hashlib.sha256(data).hexdigest()
            or path is None or not path.is_file() or hashlib.sha256(path.read_bytes()).hexdigest() != found[0]
        ):
            lost += 1
    return max(lost, len(unsettled))


if __name__ == "__main__":
    main()
