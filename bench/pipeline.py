"""Upload-to-verdict time through the real pipeline, against the bare engine on the same bundle.

    .venv/bin/python bench/pipeline.py [--mb 256] [--ranks 64] [--hosts 8] [--keep] [--bundle PATH]

Builds a rank_crash bundle (scenario scale builder) of about --mb MiB as an uncompressed .tar,
then in the same run:
  engine    `manage.py diagnose BUNDLE --json` (a fresh process, as an SRE would run it);
  pipeline  gunicorn + one Celery worker over Redis and PostgreSQL: POST /api/v1/bundles,
            then GET /api/v1/incidents/<id> every 50 ms until `ready`.
The target: pipeline / engine < 1.5. Needs PostgreSQL and Redis (see `make services`).
"""
from __future__ import annotations

import argparse
import http.client
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tarfile
import time
import uuid
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "bench" / "out"
PY = sys.executable
TARGET_RATIO = 1.5

sys.path.insert(0, str(REPO))


def build_bundle(mb: int, ranks: int, hosts: int) -> Path:
    """A .tar of about `mb` MiB; reused when one of that size is already there."""
    from triage.scenarios import build_scale

    archive = OUT / f"pipeline-{ranks}r-{mb}mb.tar"
    if archive.exists():
        return archive
    # Size the events per rank from two small probes: the bundle grows linearly with them,
    # on top of a fixed part (init lines, snapshots).
    sizes = {}
    for events in (100, 300):
        probe_dir = OUT / "probe"
        shutil.rmtree(probe_dir, ignore_errors=True)
        probe = build_scale(probe_dir, ranks=ranks, hosts=hosts, events_per_rank=events)
        sizes[events] = sum(p.stat().st_size for p in probe.rglob("*") if p.is_file())
        shutil.rmtree(probe_dir)
    per_event = (sizes[300] - sizes[100]) / 200
    events = max(50, int(100 + (mb * 1024 * 1024 - sizes[100]) / per_event))
    folder_root = OUT / "bundle"
    shutil.rmtree(folder_root, ignore_errors=True)
    folder = build_scale(folder_root, ranks=ranks, hosts=hosts, events_per_rank=events)
    with tarfile.open(archive, "w") as tar:
        tar.add(folder, arcname=folder.name)
    shutil.rmtree(folder_root)
    return archive


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def run(env: dict[str, str], *args: str) -> str:
    done = subprocess.run([PY, "manage.py", *args], cwd=REPO, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"manage.py {' '.join(args)} failed:\n{done.stderr[-3000:]}")
    return done.stdout


def upload(port: int, token: str, path: Path, job: str) -> tuple[dict[str, str], float]:
    """POST the file as multipart, streamed from disk in 1 MiB pieces."""
    boundary = uuid.uuid4().hex
    head = (
        f"--{boundary}\r\nContent-Disposition: form-data; name=\"job\"\r\n\r\n{job}\r\n"
        f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{path.name}\"\r\n"
        "Content-Type: application/octet-stream\r\n\r\n"
    ).encode()
    tail = f"\r\n--{boundary}--\r\n".encode()
    started = time.monotonic()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    conn.putrequest("POST", "/api/v1/bundles")
    conn.putheader("Authorization", f"Bearer {token}")
    conn.putheader("Content-Type", f"multipart/form-data; boundary={boundary}")
    conn.putheader("Content-Length", str(len(head) + path.stat().st_size + len(tail)))
    conn.endheaders()
    conn.send(head)
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1024 * 1024), b""):
            conn.send(chunk)
    conn.send(tail)
    response = conn.getresponse()
    body = response.read()
    if response.status != 202:
        raise SystemExit(f"upload answered {response.status}: {body[:500]!r}")
    return json.loads(body), time.monotonic() - started


def get_json(port: int, token: str, path: str) -> dict[str, object]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.request("GET", path, headers={"Authorization": f"Bearer {token}"})
    return json.loads(conn.getresponse().read())


def wait_until_listening(port: int, proc: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"server exited:\n{log.read_text()[-3000:]}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.2)
    raise SystemExit("server did not start")


def pack(path: Path) -> Path:
    """A folder as one uncompressed .tar beside the other bench outputs; a file as it is."""
    if path.is_file():
        return path
    out = OUT / f"{path.name}.tar"
    if not out.exists():
        with tarfile.open(out.with_suffix(".tmp"), "w") as tar:
            tar.add(path, arcname=path.name)
        out.with_suffix(".tmp").rename(out)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mb", type=int, default=256)
    parser.add_argument("--ranks", type=int, default=64)
    parser.add_argument("--hosts", type=int, default=8)
    parser.add_argument("--database-url", default=os.environ.get("BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/triage_bench"))
    parser.add_argument("--redis-url", default=os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/14"))
    parser.add_argument("--runs", type=int, default=3, help="repetitions; the medians are compared")
    parser.add_argument("--keep", action="store_true", help="keep bench/out/media and the bench database")
    parser.add_argument("--bundle", type=Path, default=None,
                        help="an existing bundle (file, or a folder that is packed as one .tar) instead of the "
                             "generated one, "
                             "e.g. a bench/shapes.py shape")
    args = parser.parse_args()

    OUT.mkdir(parents=True, exist_ok=True)
    if args.bundle is None:
        bundle = build_bundle(args.mb, args.ranks, args.hosts)
        what = f"{args.ranks} ranks on {args.hosts} hosts"
    else:
        bundle = pack(args.bundle)
        what = f"from {args.bundle}"
    size_mb = bundle.stat().st_size / 1024 / 1024
    print(f"bundle: {bundle} ({size_mb:.0f} MiB, {what})")

    prefix = f"triage-bench-{uuid.uuid4().hex[:8]}:"
    media = OUT / "media"
    shutil.rmtree(media, ignore_errors=True)
    env = {
        **os.environ, "DJANGO_SETTINGS_MODULE": "triage.settings", "DEBUG": "1",
        "DATABASE_URL": args.database_url, "REDIS_URL": args.redis_url, "CELERY_KEY_PREFIX": prefix,
        "MEDIA_ROOT": str(media), "LOG_LEVEL": "WARNING",
    }
    _recreate_database(args.database_url)
    processes: list[subprocess.Popen[bytes]] = []
    try:
        run(env, "migrate", "--noinput", "-v", "0")
        token = run(env, "apitoken", "create", "--name", "bench").strip()

        engine_runs: list[float] = []
        for _ in range(args.runs):
            started = time.monotonic()
            engine = subprocess.run([PY, "manage.py", "diagnose", str(bundle), "--json"], cwd=REPO, env=env,
                                    capture_output=True, check=False)
            engine_runs.append(time.monotonic() - started)
            if engine.returncode != 0:
                raise SystemExit(f"manage.py diagnose failed: {engine.stderr.decode()[-2000:]}")
        engine_cause = (json.loads(engine.stdout)["findings"] or [{}])[0].get("cause")

        port = free_port()
        web_log, worker_log = OUT / "web.log", OUT / "worker.log"
        with web_log.open("wb") as out:
            processes.append(subprocess.Popen(
                [PY, "-m", "gunicorn", "triage.wsgi:application", "--bind", f"127.0.0.1:{port}", "--workers", "1",
                 "--timeout", "600"], cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True))
        with worker_log.open("wb") as out:
            processes.append(subprocess.Popen(
                [PY, "-m", "celery", "-A", "triage", "worker", "--concurrency=1", "--loglevel=WARNING",
                 "--without-gossip", "--without-mingle", "--without-heartbeat"],
                cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True))
        wait_until_listening(port, processes[0], web_log)
        time.sleep(3)  # let the worker connect to Redis before the clock starts

        pipeline_runs: list[tuple[float, float, float]] = []  # total, upload, parse in the worker
        for _ in range(args.runs):
            started = time.monotonic()
            created, upload_s = upload(port, token, bundle, job="")
            while True:
                body = get_json(port, token, f"/api/v1/incidents/{created['incident']}")
                if body["status"] in ("ready", "failed"):
                    break
                time.sleep(0.05)
            total_s = time.monotonic() - started
            if body["status"] != "ready":
                raise SystemExit(f"the pipeline failed: {body['error']}\n{worker_log.read_text()[-3000:]}")
            pipeline_runs.append((total_s, upload_s, _parse_seconds(args.database_url, created["incident"])))
        cause = body["diagnosis"]["findings"][0]["cause"]  # type: ignore[index]
    finally:
        stop_stack(processes, redis_url=args.redis_url, prefix=prefix, media=media,
                   database_url=args.database_url, keep=args.keep)

    engine_s = statistics.median(engine_runs)
    pipeline_s, upload_s, parse_s = (statistics.median(run[i] for run in pipeline_runs) for i in range(3))
    ratio = pipeline_s / engine_s
    print(f"engine   manage.py diagnose: median {engine_s:6.2f} s of {_list(engine_runs)}  (verdict {engine_cause})")
    print(f"pipeline upload to verdict: median {pipeline_s:6.2f} s of {_list(r[0] for r in pipeline_runs)}"
          f"  (verdict {cause})")
    print(f"         of which upload {upload_s:.2f} s, parse in the worker {parse_s:.2f} s,"
          f" queue + store + polling {pipeline_s - upload_s - parse_s:.2f} s")
    print(f"ratio {ratio:.2f} (target < {TARGET_RATIO})")
    sys.exit(0 if ratio < TARGET_RATIO and cause == engine_cause else 1)


def _list(values: object) -> str:
    return "[" + ", ".join(f"{v:.2f}" for v in values) + "]"  # type: ignore[attr-defined]


def _parse_seconds(database_url: str, incident_id: str) -> float:
    import psycopg

    with psycopg.connect(database_url) as conn:
        row = conn.execute(
            "SELECT parse_seconds FROM incidents_diagnosis WHERE incident_id = %s", (incident_id,)
        ).fetchone()
    return float(row[0]) if row else 0.0


def _admin_connection(database_url: str):  # type: ignore[no-untyped-def]
    import psycopg

    base, _, name = database_url.rpartition("/")
    return psycopg.connect(f"{base}/postgres", autocommit=True), name


def _recreate_database(database_url: str) -> None:
    conn, name = _admin_connection(database_url)
    with conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')


def _drop_database(database_url: str) -> None:
    conn, name = _admin_connection(database_url)
    with conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def stop_stack(processes: list[subprocess.Popen[bytes]], *, redis_url: str, prefix: str, media: Path,
               database_url: str, keep: bool) -> None:
    """Stop the servers and worker this benchmark started, and remove what they left behind."""
    for proc in processes:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(30)
    _clear_redis(redis_url, prefix)
    if not keep:
        shutil.rmtree(media, ignore_errors=True)
        _drop_database(database_url)


def _clear_redis(redis_url: str, prefix: str) -> None:
    import redis

    client = redis.Redis.from_url(redis_url)
    for key in client.scan_iter(match=prefix + "*"):
        client.delete(key)


if __name__ == "__main__":
    main()
