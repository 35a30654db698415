"""`snapshot`: a real run on this GPU-less machine, plus the host, kernel-log and env parts."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from collectors import host, kernel_log
from collectors.environment import job_id_from_env, relevant_env

REPO = Path(__file__).resolve().parents[2]


def test_it_writes_a_snapshot_without_a_gpu_and_exits_0(tmp_path):
    out = tmp_path / "snapshot.json"
    env = {**os.environ, "NCCL_SOCKET_IFNAME": "eth0", "NCCL_DEBUG": "INFO", "CUDA_VISIBLE_DEVICES": "0,1",
           "TORCH_HUB_TOKEN": "hf_secret_value", "NCCL_IB_PKEY": "0x8001", "RANK": "3", "HOME_UNRELATED": "x"}
    proc = subprocess.run([sys.executable, "-m", "collectors", "snapshot", "--out", str(out)],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    snap = json.loads(out.read_text())
    assert snap["schema"] == "nccl-triage/snapshot@1"
    assert snap["nvml"] == {"available": False, "reason": "NVML Shared Library Not Found"}
    from importlib.metadata import version
    assert snap["versions"]["torch"] == version("torch")
    assert snap["versions"]["python"] == sys.version.split()[0]
    assert snap["versions"]["torch_device_count"] == 0
    assert snap["env"]["NCCL_SOCKET_IFNAME"] == "eth0"
    assert snap["env"]["CUDA_VISIBLE_DEVICES"] == "0,1"
    assert snap["env"]["RANK"] == "3"
    assert snap["env"]["TORCH_HUB_TOKEN"] == "[redacted]"
    assert snap["env"]["NCCL_IB_PKEY"] == "[redacted]"
    assert "HOME_UNRELATED" not in snap["env"]
    assert "hf_secret_value" not in out.read_text()
    h = snap["host"]
    assert h["hostname"] == os.uname().nodename
    assert h["kernel"] == os.uname().release
    assert h["boot_time"].endswith("Z")
    st = os.statvfs("/dev/shm")
    assert h["shm"]["size_bytes"] == st.f_blocks * st.f_frsize
    assert any(i["name"] == "lo" and "127.0.0.1" in i["addresses"] for i in h["interfaces"])
    assert isinstance(snap["xid"], list) or snap["kernel_log"]["error"]


def test_it_prints_to_stdout_without_out():
    proc = subprocess.run([sys.executable, "-m", "collectors", "snapshot"], cwd=REPO,
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0
    assert json.loads(proc.stdout)["schema"] == "nccl-triage/snapshot@1"


@pytest.mark.parametrize("name", ["WANDB_API_KEY", "my_password", "AWS_SECRET_ACCESS_KEY", "Git_Token",
                                  "GOOGLE_APPLICATION_CREDENTIALS", "NCCL_SECRET"])
def test_secret_looking_names_are_redacted(name):
    env = relevant_env({"NCCL_" + name: "s3cr3t", "TORCH_" + name: "s3cr3t"})
    assert set(env.values()) == {"[redacted]"}


def test_only_the_variables_that_matter_are_kept():
    env = relevant_env({"PATH": "/bin", "NCCL_DEBUG": "WARN", "MASTER_ADDR": "10.0.0.1", "MASTER_PORT": "29500",
                        "TORCHELASTIC_RUN_ID": "r1", "LOCAL_RANK": "0", "WORLD_SIZE": "8", "SHELL": "bash"})
    assert env == {"LOCAL_RANK": "0", "MASTER_ADDR": "10.0.0.1", "MASTER_PORT": "29500",
                   "NCCL_DEBUG": "WARN", "TORCHELASTIC_RUN_ID": "r1", "WORLD_SIZE": "8"}


def test_job_id_comes_from_the_scheduler():
    assert job_id_from_env({"SLURM_JOB_ID": "81723", "TORCHELASTIC_RUN_ID": "x"}) == "81723"
    assert job_id_from_env({"TORCHELASTIC_RUN_ID": "none", "PBS_JOBID": "12.pbs"}) == "12.pbs"
    assert job_id_from_env({"PATH": "/bin"}) is None


def test_infiniband_ports_are_read_from_sysfs(tmp_path):
    # The kernel's sysfs layout for IB (Documentation/ABI/stable/sysfs-class-infiniband).
    for dev, port, state, phys, rate, layer in [
        ("mlx5_0", "1", "4: ACTIVE", "5: LinkUp", "400 Gb/sec (4X NDR)", "InfiniBand"),
        ("mlx5_1", "1", "1: DOWN", "3: Disabled", "10 Gb/sec (4X SDR)", "Ethernet"),
    ]:
        p = tmp_path / "class" / "infiniband" / dev / "ports" / port
        p.mkdir(parents=True)
        (p / "state").write_text(state + "\n")
        (p / "phys_state").write_text(phys + "\n")
        (p / "rate").write_text(rate + "\n")
        (p / "link_layer").write_text(layer + "\n")
    assert host.infiniband(str(tmp_path)) == [
        {"device": "mlx5_0", "port": 1, "state": "ACTIVE", "phys_state": "LinkUp",
         "rate": "400 Gb/sec (4X NDR)", "link_layer": "InfiniBand"},
        {"device": "mlx5_1", "port": 1, "state": "DOWN", "phys_state": "Disabled",
         "rate": "10 Gb/sec (4X SDR)", "link_layer": "Ethernet"},
    ]


def test_no_infiniband_is_an_empty_list(tmp_path):
    assert host.infiniband(str(tmp_path)) == []


def test_a_small_shm_is_measured(tmp_path):
    s = host.shm(str(tmp_path))
    assert s["size_bytes"] > 0 and 0 <= s["free_bytes"] <= s["size_bytes"]
    assert host.shm(str(tmp_path / "missing")) == {"path": str(tmp_path / "missing"), "size_bytes": None, "free_bytes": None}


def test_container_detection(tmp_path):
    assert host.in_container(str(tmp_path)) is bool(os.environ.get("container") or os.environ.get("KUBERNETES_SERVICE_HOST"))  # noqa: SIM112
    (tmp_path / "proc" / "1").mkdir(parents=True)
    (tmp_path / "proc" / "1" / "cgroup").write_text("0::/kubepods/besteffort/pod1234/abcd\n")
    assert host.in_container(str(tmp_path)) is True


def test_xid_lines_of_old_and_new_drivers_are_parsed():
    text = (
        "[  812.123456] NVRM: Xid (PCI:0000:1b:00): 79, pid=4242, name=python, GPU has fallen off the bus.\n"
        "2026-12-01T14:22:01,123456+00:00 NVRM: Xid (PCI:0000:3b:00): 48, pid='<unknown>', name=<unknown>, "
        "An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition 1.\n"
        "[  900.000001] NVRM: Xid (PCI:0000:3B:00 GPU-I:01 GPU-CI:00): 94, Contained: SM (0x1). RST: No, D-RST: No\n"
        "[  901.000000] eth0: link up\n"
    )
    xids = kernel_log.parse_xid_lines(text)
    assert [(x["xid"], x["pci"], x["pid"]) for x in xids] == [
        (79, "0000:1b:00", "4242"), (48, "0000:3b:00", "<unknown>"), (94, "0000:3b:00", None)]
    assert xids[0]["text"] == "NVRM: Xid (PCI:0000:1b:00): 79, pid=4242, name=python, GPU has fallen off the bus."
    assert xids[2]["message"].startswith("Contained: SM")


def test_the_kernel_log_is_read_or_the_reason_is_given():
    klog = kernel_log.read_kernel_log()
    assert (klog.text is None) == (klog.source is None)
    assert klog.text is not None or klog.error


def test_it_says_on_stderr_that_there_is_no_gpu_and_keeps_stdout_json():
    proc = subprocess.run([sys.executable, "-m", "collectors", "snapshot"], cwd=REPO,
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0
    json.loads(proc.stdout)  # stdout is still the document alone
    assert "nccl-triage: no GPU readings in this snapshot: NVML Shared Library Not Found" in proc.stderr
