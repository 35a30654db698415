"""200 concurrent collector uploads of small bundles against gunicorn and a real Celery worker.

    .venv/bin/python bench/load.py [--uploads 200] [--nodes-per-job 4] [--web-workers 4] [--threads 8]

Everything on loopback: gunicorn (gthread) + `celery worker` over Redis and PostgreSQL (a fresh
bench database). Each "node" sends one small .tar.gz (a real NCCL log plus its own rank line,
so every bundle is distinct) to the job it belongs to, all at once from one thread each. Then:
  - every upload must be answered 202 (none lost, none refused);
  - every bundle must be in the database with the sha256 that was sent, and its file on disk;
  - every incident must reach `ready` with a diagnosis covering all its bundles.
Prints p50/p99 upload latency, upload throughput, and the time until every verdict was in.
Exit status 0 only when nothing was lost and everything is ready.
"""
from __future__ import annotations

import argparse
import hashlib
import http.client
import io
import json
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import threading
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
# The sibling benchmark's process helpers (E402: importable once its folder is on sys.path).
from pipeline import OUT, PY, REPO, _recreate_database, free_port, run, stop_stack, wait_until_listening  # noqa: E402

SAMPLE = "corpus/real/nccl-290/log.txt"


def shared_folder() -> Path:
    override = os.environ.get("NCCL_TRIAGE_SHARED")
    if override:
        return Path(override)
    beside = REPO.parent / "shared"
    return beside if beside.is_dir() else Path("/work/shared")


def small_bundle(log: bytes, job: int, node: int) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        data = log + f"\nnode-{node} of job {job}: rank {node} done\n".encode()
        info = tarfile.TarInfo(f"node-{node}/rank{node}.log")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def post_bundle(port: int, token: str, data: bytes, job: str, host: str) -> tuple[int, dict[str, str], float]:
    boundary = uuid.uuid4().hex
    body = (
        f"--{boundary}\r\nContent-Disposition: form-data; name=\"job\"\r\n\r\n{job}\r\n"
        f"--{boundary}\r\nContent-Disposition: form-data; name=\"host\"\r\n\r\n{host}\r\n"
        f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{host}.tar.gz\"\r\n"
        "Content-Type: application/octet-stream\r\n\r\n"
    ).encode() + data + f"\r\n--{boundary}--\r\n".encode()
    started = time.monotonic()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
    conn.request("POST", "/api/v1/bundles", body=body, headers={
        "Authorization": f"Bearer {token}", "Content-Type": f"multipart/form-data; boundary={boundary}",
    })
    response = conn.getresponse()
    payload = response.read()
    elapsed = time.monotonic() - started
    conn.close()
    try:
        parsed = json.loads(payload)
    except ValueError:
        parsed = {"error": payload[:200].decode(errors="replace")}
    return response.status, parsed, elapsed


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--uploads", type=int, default=200)
    parser.add_argument("--nodes-per-job", type=int, default=4, help="uploads that join one incident")
    parser.add_argument("--web-workers", type=int, default=4)
    parser.add_argument("--threads", type=int, default=8, help="gunicorn threads per worker")
    parser.add_argument("--celery-concurrency", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=600, help="seconds to wait for every verdict")
    parser.add_argument("--database-url", default=os.environ.get("BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/triage_load"))
    parser.add_argument("--redis-url", default=os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/14"))
    parser.add_argument("--keep", action="store_true", help="keep bench/out/load-media and the bench database")
    args = parser.parse_args()

    log = (shared_folder() / SAMPLE).read_bytes()
    bundles = [
        (f"load-job-{i // args.nodes_per_job}", f"node-{i}", small_bundle(log, i // args.nodes_per_job, i))
        for i in range(args.uploads)
    ]
    sizes = [len(b) for _, _, b in bundles]
    print(f"{args.uploads} bundles of {min(sizes)}-{max(sizes)} bytes (.tar.gz), "
          f"{args.nodes_per_job} per job ({len({j for j, _, _ in bundles})} incidents)")

    OUT.mkdir(parents=True, exist_ok=True)
    prefix = f"triage-load-{uuid.uuid4().hex[:8]}:"
    media = OUT / "load-media"
    shutil.rmtree(media, ignore_errors=True)
    env = {
        **os.environ, "DJANGO_SETTINGS_MODULE": "triage.settings", "DEBUG": "1",
        "DATABASE_URL": args.database_url, "REDIS_URL": args.redis_url, "CELERY_KEY_PREFIX": prefix,
        "MEDIA_ROOT": str(media), "LOG_LEVEL": "WARNING", "DB_CONN_MAX_AGE": "60",
    }
    _recreate_database(args.database_url)
    processes: list[subprocess.Popen[bytes]] = []
    ok = False
    try:
        run(env, "migrate", "--noinput", "-v", "0")
        token = run(env, "apitoken", "create", "--name", "load").strip()
        port = free_port()
        web_log, worker_log = OUT / "load-web.log", OUT / "load-worker.log"
        with web_log.open("wb") as out:
            processes.append(subprocess.Popen(
                [PY, "-m", "gunicorn", "triage.wsgi:application", "--bind", f"127.0.0.1:{port}",
                 "--workers", str(args.web_workers), "--worker-class", "gthread", "--threads", str(args.threads),
                 "--backlog", "2048", "--timeout", "300"],
                cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True))
        with worker_log.open("wb") as out:
            processes.append(subprocess.Popen(
                [PY, "-m", "celery", "-A", "triage", "worker", f"--concurrency={args.celery_concurrency}",
                 "--loglevel=WARNING", "--without-gossip", "--without-mingle", "--without-heartbeat"],
                cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True))
        wait_until_listening(port, processes[0], web_log)
        time.sleep(3)  # the worker connects to Redis

        results: list[tuple[int, dict[str, str], float] | None] = [None] * len(bundles)
        gate = threading.Barrier(len(bundles) + 1)

        def send(i: int) -> None:
            job, host, data = bundles[i]
            gate.wait()
            try:
                results[i] = post_bundle(port, token, data, job, host)
            except OSError as e:
                results[i] = (0, {"error": repr(e)}, 0.0)

        threads = [threading.Thread(target=send, args=(i,)) for i in range(len(bundles))]
        for t in threads:
            t.start()
        gate.wait()  # all at once
        started = time.monotonic()
        for t in threads:
            t.join()
        burst_s = time.monotonic() - started

        answered = [r for r in results if r is not None]
        accepted = [r for r in answered if r[0] == 202]
        refused = [(r[0], r[1].get("error")) for r in answered if r[0] != 202]
        latencies = [r[2] for r in accepted]
        incidents = sorted({r[1]["incident"] for r in accepted})

        # Every verdict: poll the API until every incident is ready (or failed, or time is up).
        states: dict[str, str] = {}
        while True:
            for incident in incidents:
                if states.get(incident) not in ("ready", "failed"):
                    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
                    conn.request("GET", f"/api/v1/incidents/{incident}", headers={"Authorization": f"Bearer {token}"})
                    states[incident] = json.loads(conn.getresponse().read())["status"]
                    conn.close()
            if all(s in ("ready", "failed") for s in states.values()) or time.monotonic() - started > args.timeout:
                break
            time.sleep(0.5)
        settled_s = time.monotonic() - started

        lost, stale = check_database(args.database_url, media, bundles)
        ready = sum(1 for s in states.values() if s == "ready")
        print(f"uploads accepted {len(accepted)}/{len(bundles)}; refused {len(refused)} {refused[:3]}")
        if latencies:
            print(f"upload latency p50 {percentile(latencies, 0.5) * 1000:.0f} ms, "
                  f"p99 {percentile(latencies, 0.99) * 1000:.0f} ms, max {max(latencies) * 1000:.0f} ms, "
                  f"mean {statistics.mean(latencies) * 1000:.0f} ms")
        print(f"throughput {len(accepted) / burst_s:.1f} uploads/s ({len(accepted)} in {burst_s:.2f} s)")
        print(f"incidents ready {ready}/{len(incidents)}; every verdict in after {settled_s:.1f} s")
        print(f"lost bundles {lost}; incidents whose diagnosis misses a bundle {stale}")
        ok = len(accepted) == len(bundles) and lost == 0 and stale == 0 and ready == len(incidents) == len(
            {j for j, _, _ in bundles})
        if not ok:
            print(f"worker log tail:\n{worker_log.read_text(errors='replace')[-2000:]}")
    finally:
        stop_stack(processes, redis_url=args.redis_url, prefix=prefix, media=media,
                   database_url=args.database_url, keep=args.keep)
    print("OK" if ok else "FAILED")
    sys.exit(0 if ok else 1)


def check_database(database_url: str, media: Path, bundles: list[tuple[str, str, bytes]]) -> tuple[int, int]:
    """(bundles sent but not stored intact, incidents whose diagnosis predates a bundle)."""
    import psycopg

    with psycopg.connect(database_url) as conn:
        stored = {
            (job, host): (sha, name)
            for job, host, sha, name in conn.execute(
                "SELECT i.job, b.host, b.sha256, b.file FROM incidents_bundle b "
                "JOIN incidents_incident i ON i.id = b.incident_id"
            )
        }
        stale = conn.execute(
            "SELECT count(*) FROM incidents_incident i LEFT JOIN incidents_diagnosis d ON d.incident_id = i.id "
            "WHERE d.revision IS NULL OR d.revision < i.revision OR i.revision <> "
            "(SELECT count(*) FROM incidents_bundle b WHERE b.incident_id = i.id)"
        ).fetchone()[0]
    lost = 0
    for job, host, data in bundles:
        found = stored.get((job, host))
        if found is None or found[0] != hashlib.sha256(data).hexdigest():
            lost += 1
            continue
        path = media / found[1]
        if not path.is_file() or hashlib.sha256(path.read_bytes()).hexdigest() != found[0]:
            lost += 1
    return lost, int(stale)


if __name__ == "__main__":
    main()
