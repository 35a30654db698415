"""Background NVML sampling to JSON lines while a job runs: who was at 0% while others worked."""
from __future__ import annotations

import json
import threading
import time
from pathlib import Path

from collectors.host import hostname, utc_iso
from collectors.nvml import NvmlUnavailable, gpu_samples, nvml_session


class NvmlSampler:
    """A daemon thread writing one line per GPU every `interval` seconds until stop()."""

    def __init__(self, out: Path, interval: float = 5.0, host: str | None = None) -> None:
        self.out = out
        self.interval = interval
        self.host = host or hostname()
        self.unavailable: str | None = None   # NVML's reason, when there was nothing to sample
        self.error: str | None = None         # why sampling stopped early, if it did
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="nvml-sampler", daemon=True)

    def start(self) -> NvmlSampler:
        self._thread.start()
        return self

    def stop(self, timeout: float = 10.0) -> None:
        self._stop.set()
        self._thread.join(timeout)

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def _run(self) -> None:
        try:
            with nvml_session() as pynvml, open(self.out, "a", buffering=1) as f:
                while not self._stop.is_set():
                    now = utc_iso(time.time())
                    try:
                        for s in gpu_samples(pynvml):
                            f.write(json.dumps({"time": now, "host": self.host, **s}) + "\n")
                    except pynvml.NVMLError as exc:
                        # A GPU lost mid-job is worth one line, not the end of sampling.
                        f.write(json.dumps({"time": now, "host": self.host, "gpu": None, "error": str(exc)}) + "\n")
                    self._stop.wait(self.interval)
        except NvmlUnavailable as exc:
            self.unavailable = str(exc)
        except OSError as exc:
            self.error = str(exc)
