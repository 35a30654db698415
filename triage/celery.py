"""The Celery app. Configuration lives in settings.py under the CELERY_ namespace."""
from __future__ import annotations

import ctypes
import logging
import os
import signal
from typing import Any

from celery import Celery
from celery.signals import beat_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "triage.settings")

app = Celery("triage")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

log = logging.getLogger(__name__)
PR_SET_PDEATHSIG = 1


@beat_init.connect
def _die_with_the_worker(sender: Any = None, **_: Any) -> None:
    """`worker -B` runs beat in a child process. SIGKILL the worker and that child lives on,
    and the restarted worker starts a second beat: two schedulers, every job sent twice. Ask
    the kernel to stop this process when its parent dies (Linux), and stop now if it is
    already gone. A standalone `celery beat` has a shell or an init as parent: harmless."""
    parent = os.getppid()
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    except (OSError, AttributeError):
        log.info("no prctl here: a beat started by `worker -B` may outlive a killed worker")
        return
    if os.getppid() != parent:
        os.kill(os.getpid(), signal.SIGTERM)
