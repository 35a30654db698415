"""deploy/k8s: every manifest validates against the Kubernetes schemas (kubernetes-validate,
offline, strict: unknown fields are errors), the pieces refer to each other correctly, and the
settings they give start the app with bundles in object storage."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

from tests.conftest import REPO

K8S = REPO / "deploy" / "k8s"
KUBERNETES = "1.35.0"


def documents() -> list[tuple[str, dict[str, Any]]]:
    docs = []
    for path in sorted(K8S.glob("*.yaml")):
        for doc in yaml.safe_load_all(path.read_text()):
            if doc:
                docs.append((f"{path.name}:{doc['kind']}/{doc['metadata']['name']}", doc))
    return docs


DOCS = documents()


@pytest.mark.parametrize("name,doc", DOCS, ids=[name for name, _ in DOCS])
def test_each_manifest_is_valid_kubernetes(name: str, doc: dict[str, Any]) -> None:
    kubernetes_validate.validate(doc, KUBERNETES, strict=True)


def test_the_validator_does_reject_a_broken_manifest() -> None:
    broken = next(doc for _, doc in DOCS if doc["kind"] == "Deployment")
    broken = json.loads(json.dumps(broken))
    broken["spec"]["replicas"] = "two"
    broken["spec"]["template"]["spec"]["containers"][0]["imagePullPolicyy"] = "Always"
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(broken, KUBERNETES, strict=True)


def test_the_stack_has_web_worker_beat_and_a_collector_and_the_references_hold() -> None:
    kinds = {(doc["kind"], doc["metadata"]["name"]) for _, doc in DOCS}
    assert {("Deployment", "nccl-triage-web"), ("Deployment", "nccl-triage-worker"),
            ("Deployment", "nccl-triage-beat"), ("Service", "nccl-triage-web")} <= kinds
    jobs = [doc for _, doc in DOCS if doc["kind"] == "Job"]
    commands = [c["command"] for job in jobs for c in job["spec"]["template"]["spec"].get("initContainers", [])
                + job["spec"]["template"]["spec"]["containers"]]
    assert any("gate" in cmd for cmd in commands) and any("upload" in cmd for cmd in commands)
    assert any("run" in cmd for cmd in commands)
    names = {(doc["kind"], doc["metadata"]["name"]) for _, doc in DOCS}
    for label, doc in DOCS:
        if doc["kind"] != "Deployment":
            continue
        spec = doc["spec"]
        assert spec["selector"]["matchLabels"].items() <= spec["template"]["metadata"]["labels"].items(), label
        pod = spec["template"]["spec"]
        mounted = {v["name"] for v in pod.get("volumes", [])}
        for c in pod.get("initContainers", []) + pod["containers"]:
            for ref in c.get("envFrom", []):
                assert ("ConfigMap", ref["configMapRef"]["name"]) in names, label
            assert {m["name"] for m in c.get("volumeMounts", [])} <= mounted, label
        for volume in pod.get("volumes", []):
            if "secret" in volume:
                assert ("Secret", volume["secret"]["secretName"]) in names, label
    service = next(doc for _, doc in DOCS if doc["kind"] == "Service")
    web = next(doc for _, doc in DOCS if doc["metadata"]["name"] == "nccl-triage-web" and doc["kind"] == "Deployment")
    assert service["spec"]["selector"].items() <= web["spec"]["template"]["metadata"]["labels"].items()


def test_the_manifests_settings_start_the_app_with_bundles_in_object_storage(tmp_path: Path) -> None:
    config = next(doc for _, doc in DOCS if doc["kind"] == "ConfigMap")
    secret = next(doc for _, doc in DOCS if doc["kind"] == "Secret")
    web = next(doc for _, doc in DOCS if doc["metadata"]["name"] == "nccl-triage-web" and doc["kind"] == "Deployment")
    container = web["spec"]["template"]["spec"]["containers"][0]
    mount = next(m["mountPath"] for m in container["volumeMounts"] if m["name"] == "secrets")
    # The secret as the kubelet mounts it: one file per key, here under tmp_path.
    for key, value in secret["stringData"].items():
        (tmp_path / key).write_text(value)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "TRIAGE_", "DATABASE_", "REDIS_"))}
    env.update(config["data"])
    env.update({e["name"]: e["value"].replace(mount, str(tmp_path)) for e in container["env"]})
    env["DJANGO_SETTINGS_MODULE"] = "triage.settings"
    script = ("import django; django.setup(); from django.conf import settings as s; "
              "from django.core.files.storage import storages; "
              "print(type(storages['default']).__name__, s.AWS_SECRET_ACCESS_KEY, s.DEBUG, bool(s.CELERY_BROKER_URL))")
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO, env=env, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["BundleS3Storage", secret["stringData"]["aws-secret-access-key"], "False", "True"]
