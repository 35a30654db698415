"""Facts about the node: name, boot, kernel, container, /dev/shm, InfiniBand ports, interfaces."""
from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any


def utc_iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def hostname() -> str:
    return socket.gethostname()


def boot_time(proc_root: str = "/proc") -> str | None:
    try:
        for line in Path(proc_root, "stat").read_text().splitlines():
            if line.startswith("btime "):
                return utc_iso(int(line.split()[1]))
    except (OSError, ValueError, IndexError):
        pass
    return None


def in_container(root: str = "/") -> bool:
    if Path(root, ".dockerenv").exists() or Path(root, "run/.containerenv").exists():
        return True
    # `container` is lower case on purpose: podman and systemd-nspawn set it so.
    if os.environ.get("container") or os.environ.get("KUBERNETES_SERVICE_HOST"):  # noqa: SIM112
        return True
    try:
        cgroup = Path(root, "proc/1/cgroup").read_text()
    except OSError:
        return False
    return any(word in cgroup for word in ("docker", "kubepods", "containerd", "lxc", "libpod"))


def shm(path: str = "/dev/shm") -> dict[str, Any]:
    """Size and free space: a container's 64 MiB default is a classic NCCL killer."""
    try:
        st = os.statvfs(path)
    except OSError:
        return {"path": path, "size_bytes": None, "free_bytes": None}
    return {"path": path, "size_bytes": st.f_blocks * st.f_frsize, "free_bytes": st.f_bavail * st.f_frsize}


def _sysfs_value(path: Path) -> str | None:
    """sysfs IB files read like '4: ACTIVE' or '5: LinkUp'; keep the words after the number."""
    try:
        text = path.read_text().strip()
    except OSError:
        return None
    head, sep, tail = text.partition(": ")
    return tail if sep and head.isdigit() else text


def infiniband(sysfs_root: str = "/sys") -> list[dict[str, Any]]:
    base = Path(sysfs_root, "class", "infiniband")
    ports: list[dict[str, Any]] = []
    if not base.is_dir():
        return ports
    for dev in sorted(base.iterdir()):
        for port in sorted((dev / "ports").glob("*"), key=lambda p: (len(p.name), p.name)):
            if not port.name.isdigit():
                continue
            ports.append({
                "device": dev.name,
                "port": int(port.name),
                "state": _sysfs_value(port / "state"),
                "phys_state": _sysfs_value(port / "phys_state"),
                "rate": _sysfs_value(port / "rate"),
                "link_layer": _sysfs_value(port / "link_layer"),
            })
    return ports


def interfaces(sysfs_root: str = "/sys") -> list[dict[str, Any]]:
    """Network interfaces with their addresses; `ip -j addr` when present, else sysfs names only."""
    ip = shutil.which("ip")
    if ip:
        try:
            out = subprocess.run([ip, "-j", "addr", "show"], capture_output=True, text=True, timeout=10, check=False)
            if out.returncode == 0:
                return [
                    {"name": item.get("ifname"),
                     "addresses": [a.get("local") for a in item.get("addr_info", []) if a.get("local")],
                     "up": "UP" in item.get("flags", []),
                     "mtu": item.get("mtu")}
                    for item in json.loads(out.stdout)
                ]
        except (OSError, subprocess.SubprocessError, ValueError):
            pass
    result = []
    net = Path(sysfs_root, "class", "net")
    for dev in sorted(net.iterdir()) if net.is_dir() else []:
        flags = _sysfs_value(dev / "flags")
        mtu = _sysfs_value(dev / "mtu")
        result.append({
            "name": dev.name,
            "addresses": None,  # unknown without `ip`: null, never guessed
            "up": bool(int(flags, 16) & 0x1) if flags else None,
            "mtu": int(mtu) if mtu and mtu.isdigit() else None,
        })
    return result


def timezone_info() -> dict[str, Any]:
    """NCCL and torch log lines carry local time: say which zone that was."""
    offset = -(time.altzone if time.localtime().tm_isdst > 0 else time.timezone)
    return {"name": time.tzname[time.localtime().tm_isdst > 0], "utc_offset_seconds": offset}


def host_facts() -> dict[str, Any]:
    return {
        "hostname": hostname(),
        "boot_time": boot_time(),
        "kernel": os.uname().release,
        "container": in_container(),
        "timezone": timezone_info(),
        "shm": shm(),
        "infiniband": infiniband(),
        "interfaces": interfaces(),
    }
