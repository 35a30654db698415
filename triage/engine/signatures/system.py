"""Signatures of messages printed by the host: the Linux kernel (OOM killer, segfault and trap
lines, PCIe AER/DPC, IOMMU faults, NIC link state, hung tasks, machine checks), the NVIDIA
kernel module outside Xid lines (NVRM), NVIDIA host daemons (Fabric Manager, persistenced),
glibc and libstdc++ aborts, the shell, and the errno texts socket code prints (see schema.py for
the fields).

Format strings read from: Linux mm/oom_kill.c (`"%s: Killed process %d (%s) total-vm:..."`,
`"oom-kill:constraint=..."`, `"%s invoked oom-killer: gfp_mask=..."`, `"oom_reaper: reaped
process %d (%s)"`; older kernels `"Out of memory: Kill process %d (%s) score %u or sacrifice
child"`), arch/x86/kernel/traps.c + arch/x86/mm/fault.c (`"%s[%d]: segfault at %lx ip %px sp
%px error %lx in %s[%lx+%lx]"`, `"traps: %s[%d] general protection fault ip:%lx sp:%lx error:%lx"`),
drivers/pci/pcie/aer.c (`"PCIe Bus Error: severity=%s, type=%s, (%s)"`, `"AER: %s error
received: %s"`), drivers/iommu/amd (`"AMD-Vi: Event logged [IO_PAGE_FAULT ..."`) and
drivers/iommu/intel (`"DMAR: DRHD: handling fault status reg %x"`, `"DMAR: [DMA Read|Write]
Request device [%02x:%02x.%d] fault addr ..."`), kernel/hung_task.c, kernel/watchdog.c;
NVIDIA/open-gpu-kernel-modules 595.45.04 src/nvidia/arch/nvalloc/unix/src/osapi.c and
osinit.c (NVRM lines); glibc malloc/malloc.c (`malloc_printerr` texts); strerror(3) texts.
"""
from __future__ import annotations

from .schema import Signature, alone_differs


def _sig(
    id_: str,
    patterns: tuple[str, ...],
    cause: str | None,
    role: str,
    confidence: str,
    priority: int,
    title: str,
    fix: str,
    origin: str,
    samples: tuple[str, ...],
    extract: str | None = None,
) -> Signature:
    return Signature(id=id_, patterns=patterns, cause=cause, role=role, confidence=confidence,
                     title=title, fix=fix, origin=origin, samples=samples, extract=extract,
                     priority=priority)


_OOM_FIX = (
    "The host ran out of RAM (or the job's cgroup hit its memory limit) and the kernel killed "
    "{process} (pid {pid}); the other ranks then fail in NCCL. Usual culprits: too many "
    "DataLoader workers, every rank loading the full checkpoint/dataset into RAM, pinned memory, "
    "or a container memory limit below the job's needs. Check and reduce host memory use:\n"
    "$ dmesg -T | grep -E 'Killed process|oom-kill|invoked oom-killer'\n"
    "$ free -g; cat /sys/fs/cgroup/memory.max 2>/dev/null\n"
    "$ kubectl describe pod <pod> | grep -i -A3 'last state'   # OOMKilled"
)

_SHM_FIX = (
    "The shared-memory filesystem /dev/shm is full or too small (Docker's default is 64 MB). "
    "NCCL's intra-node transport and DataLoader workers put buffers there; when it is full, "
    "touching a mapped page raises SIGBUS. Give the container more shared memory:\n"
    "$ df -h /dev/shm\n"
    "$ docker run --shm-size=16g ...   # or --ipc=host\n"
    "# Kubernetes: mount an emptyDir with medium: Memory at /dev/shm"
)

_IOMMU_FIX = (
    "The IOMMU blocked a DMA from a PCIe device (often GPU-to-GPU peer traffic that the IOMMU or "
    "PCIe ACS redirects through the root complex). NCCL P2P then hangs or fails. Disable the "
    "IOMMU for the GPUs (or use passthrough mode) and ACS on the PCIe switches, or run without "
    "P2P to confirm:\n"
    "$ cat /proc/cmdline   # add iommu=pt (and amd_iommu=on / intel_iommu=on) or disable it\n"
    "$ lspci -vvv | grep -i acsctl   # SrcValid+ on PCIe switch ports redirects P2P\n"
    "$ NCCL_P2P_DISABLE=1 <your launch command>   # confirms\n"
    "$ nvidia-smi topo -p2p r"
)

_AER_FIX = (
    "A PCIe link reported errors (device {device_bdf}). If the device is a GPU, or the root/"
    "switch port above one, the GPU may drop off the bus or corrupt transfers. Identify the "
    "device and its link state; reseat/replace the riser, cable or card if errors continue:\n"
    "$ lspci -s {device_bdf} -vvv | grep -E 'LnkSta|UESta|CESta'\n"
    "$ lspci -tv   # which GPU/NIC is below that port\n"
    "$ dmesg -T | grep -E 'AER|PCIe Bus Error|Xid'"
)

_NIC_FIX = (
    "A network port went down on this host ({iface}). NCCL over InfiniBand/RoCE or TCP to the "
    "peers behind it fails or hangs. Check the port state, cable and switch port, and the "
    "error counters:\n"
    "$ ibstat; ibv_devinfo | grep -E 'state|link_layer'\n"
    "$ ip -s link show {iface}\n"
    "$ dmesg -T | grep -E 'mlx5|Link (down|up)|carrier'"
)

_FM_FIX = (
    "On NVSwitch systems (HGX/DGX) the NVLink fabric is managed by nvidia-fabricmanager; while it "
    "is down or failed, CUDA reports 'system not yet initialized' and NCCL cannot use NVLink. "
    "Its version must equal the driver's. Check and restart it:\n"
    "$ systemctl status nvidia-fabricmanager\n"
    "$ journalctl -u nvidia-fabricmanager -n 100\n"
    "$ cat /proc/driver/nvidia/version; nv-fabricmanager --version\n"
    "$ nvidia-smi -q | grep -i -A3 fabric"
)

_CRASH_FIX = (
    "Process {process} (pid {pid}) crashed with a memory fault in native code; its rank died "
    "and the other ranks' NCCL errors follow. Get a backtrace from the core dump or rerun the "
    "rank under gdb; if the faulting library is NCCL, try the newest NCCL and narrow the "
    "setting that triggers it:\n"
    "$ coredumpctl list; coredumpctl gdb {pid}\n"
    "$ python -X faulthandler train.py   # Python stack at the crash\n"
    "$ NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,ENV <your launch command>"
)

_GLIBC_FIX = (
    "glibc detected heap corruption in this process and aborted it (SIGABRT): a native bug "
    "(use after free, buffer overflow) in the application, an extension or a library, or two "
    "libraries with mismatched allocators. Get the native backtrace:\n"
    "$ coredumpctl gdb <pid>   # bt\n"
    "$ MALLOC_CHECK_=3 python train.py\n"
    "$ LD_PRELOAD=$(gcc -print-file-name=libasan.so) python train.py   # with an ASan build"
)

_ERRNO_ORIGIN = "strerror(3) text (glibc), printed by socket code in NCCL, c10d, Gloo, MPI, Ray ..."

# Kernel, memory: the OOM killer and cgroup limits.
OOM: tuple[Signature, ...] = (
    _sig(
        "kernel.oom.killed_process",
        (r"(?:Out of memory|Memory cgroup out of memory): Kill(?:ed)? process \d+ \(",
         r"Killed process \d+ \(\S+\) total-vm:"),
        "oom", "fault", "high", 88,
        "Host OOM killer killed a process",
        _OOM_FIX,
        "Linux mm/oom_kill.c __oom_kill_process '%s: Killed process %d (%s) total-vm:%lukB, "
        "anon-rss:...' (message 'Out of memory' or 'Memory cgroup out of memory'), 4.x-6.x; "
        "older oom_kill_process 'Out of memory: Kill process %d (%s) score %u or sacrifice child'",
        ("[Mon Dec  1 14:22:01 2026] Out of memory: Killed process 24141 (python) total-vm:98765432kB, "
         "anon-rss:65432100kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:131072kB oom_score_adj:0",
         "Dec  1 14:22:01 node-b kernel: Memory cgroup out of memory: Killed process 24141 (python3) "
         "total-vm:1234kB, anon-rss:1000kB, file-rss:0kB, shmem-rss:0kB, UID:1000 pgtables:100kB oom_score_adj:0",
         "[ 1234.5678] Out of memory: Kill process 24141 (python) score 912 or sacrifice child",
         "[ 1234.5679] Killed process 24141 (python) total-vm:98765432kB, anon-rss:65432100kB, file-rss:0kB"),
        extract=r"Kill(?:ed)? process (?P<pid>\d+) \((?P<process>[^)]*)\)",
    ),
    _sig(
        "kernel.oom.oom_kill_constraint",
        (r"oom-kill:constraint=CONSTRAINT_\w+",),
        "oom", "fault", "high", 85,
        "Host OOM killer chose a victim (oom-kill summary line)",
        _OOM_FIX,
        "Linux mm/oom_kill.c dump_oom_summary 'oom-kill:constraint=%s,nodemask=%*pbl,...,task=%s,"
        "pid=%d,uid=%d' (4.19+)",
        ("[ 1234.5] oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=docker-abc.scope,"
         "mems_allowed=0-1,oom_memcg=/docker/abc,task_memcg=/docker/abc,task=python,pid=24141,uid=0",),
        extract=r"task=(?P<process>[^,]+),pid=(?P<pid>\d+)",
    ),
    _sig(
        "kernel.oom.invoked",
        (r"\S+ invoked oom-killer: gfp_mask=",),
        "oom", "fault", "medium", 70,
        "Host OOM killer invoked (memory exhausted on the node or in the cgroup)",
        _OOM_FIX,
        "Linux mm/oom_kill.c dump_header '%s invoked oom-killer: gfp_mask=%#x(%pGg), order=%d, "
        "oom_score_adj=%hd'",
        ("[ 1234.4] python invoked oom-killer: gfp_mask=0x100cca(GFP_HIGHUSER_MOVABLE), order=0, oom_score_adj=0",),
        extract=r"(?P<process>\S+) invoked oom-killer",
    ),
    _sig(
        "kernel.oom.reaper",
        (r"oom_reaper: reaped process \d+ \(",),
        "oom", "fault", "high", 80,
        "OOM reaper freed the memory of a killed process",
        _OOM_FIX,
        "Linux mm/oom_kill.c oom_reap_task_mm 'oom_reaper: reaped process %d (%s), now "
        "anon-rss:%lukB, file-rss:%lukB, shmem-rss:%lukB'",
        ("[ 1234.6] oom_reaper: reaped process 24141 (python), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB",),
        extract=r"reaped process (?P<pid>\d+) \((?P<process>[^)]*)\)",
    ),
    _sig(
        "kernel.oom.memory_cgroup_header",
        (r"Memory cgroup out of memory",),
        "oom", "fault", "high", 75,
        "Memory cgroup (container limit) out of memory",
        _OOM_FIX,
        "Linux mm/memcontrol.c / oom_kill.c 'Memory cgroup out of memory' (cgroup v1 and v2)",
        ("Dec  1 14:22:01 node-b kernel: Memory cgroup out of memory: Killed process 24141 (python)",
         "Memory cgroup out of memory: Kill process 24141 (python) score 1000 or sacrifice child"),
    ),
    _sig(
        "k8s.oom_killed",
        (r"OOMKilled",),
        "oom", "fault", "high", 80,
        "Container OOMKilled (memory limit reached)",
        _OOM_FIX,
        "Kubernetes container status reason 'OOMKilled' (kubelet / kubectl describe)",
        ("    Last State:     Terminated\n      Reason:       OOMKilled",
         "worker-3  0/1  OOMKilled  2  14m"),
    ),
    _sig(
        "k8s.evicted_memory",
        (r"The node was low on resource: memory",),
        "oom", "fault", "high", 78,
        "Pod evicted: the node was low on memory",
        "The kubelet evicted the pod because the node ran low on memory (memory pressure), "
        "killing every rank on it. Set memory requests = limits for training pods and reduce host "
        "memory use:\n" + _OOM_FIX.split(":\n", 1)[1],
        "Kubernetes kubelet eviction manager message 'The node was low on resource: memory.'",
        ("  Reason:   Evicted\n  Message:  The node was low on resource: memory. Container trainer was using 120Gi, which exceeds its request of 0.",
         "Warning  Evicted  2m  kubelet  The node was low on resource: memory."),
    ),
    _sig(
        "slurm.oom_kill_event",
        (r"Detected \d+ oom[_-]kill event",),
        "oom", "fault", "high", 85,
        "Slurm detected OOM-kill events in the job step",
        "Slurm's cgroup plugin saw the kernel OOM killer kill tasks of this step: the step hit "
        "its memory limit (--mem / --mem-per-cpu) or the node ran out. Ask for more memory or "
        "reduce host memory use:\n"
        "$ sacct -j <jobid> --format=JobID,MaxRSS,ReqMem,State\n" + _OOM_FIX.split(":\n", 1)[1],
        "Slurm src/plugins/task/cgroup (task_cgroup_memory.c) 'Detected %u oom_kill event%s in %ps. "
        "Some of the step tasks have been OOM Killed.' (older: 'oom-kill event(s)')",
        ("slurmstepd: error: Detected 1 oom_kill event in StepId=123456.0. Some of the step tasks have been OOM Killed.",
         "slurmstepd: error: Detected 2 oom-kill event(s) in step 123456.0 cgroup. Some of your processes may have been killed by the cgroup out-of-memory handler."),
    ),
    _sig(
        "shell.killed",
        (r"^(?:\S+:\s*|[>|]?\s*)Killed\s*$", r": line \d+: +\d+ Killed"),
        "oom", "fault", "low", 30,
        "Process killed by SIGKILL (shell 'Killed'): most often the OOM killer",
        "The shell reports that its child got SIGKILL. Unless the scheduler or a person killed it, "
        "that is the kernel OOM killer; confirm in the kernel log of that host:\n"
        "$ dmesg -T | grep -E 'Killed process|oom-kill'\n"
        "$ journalctl -k --since '1 hour ago' | grep -i oom",
        "bash/dash job status 'Killed' (strsignal(SIGKILL)) for a foreground child",
        ("Killed", "/var/spool/slurmd/job123/slurm_script: line 12: 24141 Killed                  python train.py"),
    ),
)

# Shared memory (/dev/shm) exhaustion: SIGBUS and ENOSPC.
SHM: tuple[Signature, ...] = (
    _sig(
        "kernel.shm.no_space_dev_shm",
        (r"/dev/shm.*No space left on device", r"No space left on device.*/dev/shm"),
        "shm_exhausted", "fault", "high", 85,
        "/dev/shm is full (No space left on device)",
        _SHM_FIX,
        "strerror(ENOSPC) 'No space left on device' on a path under /dev/shm",
        ("OSError: [Errno 28] No space left on device: '/dev/shm/nccl-XXXXXX'",
         "[rank0]: write /dev/shm/psm_shm.123: No space left on device"),
    ),
    _sig(
        "os.sigbus.bus_error",
        (r"Bus error \(core dumped\)", r"(?i)caught signal 7 \(bus error",
         r"Fatal Python error: Bus error", r"SIGBUS.*(?:/dev/shm|shm)",
         r"(?:^|\s)Bus error\s*$", r": line \d+: +\d+ Bus error"),
        "shm_exhausted", "fault", "medium", 72,
        "Process died of SIGBUS (Bus error): in containers almost always a full /dev/shm",
        "A process touched a page of a memory-mapped file that could not be backed: inside a "
        "container this is almost always /dev/shm running out (NCCL shared-memory transport, "
        "DataLoader workers). Rarely a hardware memory error.\n" + _SHM_FIX,
        "shell job status 'Bus error (core dumped)' (strsignal(SIGBUS)); UCX ucs signal handler "
        "'Caught signal 7 (Bus error: nonexistent physical address)'; CPython faulthandler "
        "'Fatal Python error: Bus error'",
        ("Bus error (core dumped)",
         "[626c173ba691:17033:0:19491] Caught signal 7 (Bus error: nonexistent physical address)",
         "Fatal Python error: Bus error",
         "[rank4]: received SIGBUS while accessing /dev/shm/nccl-ab12cd",
         "/var/spool/slurmd/job123/slurm_script: line 12: 24141 Bus error"),
    ),
    _sig(
        "os.shm.fallocate_enospc",
        (r"posix_fallocate failed\s*:\s*No space left on device",),
        "shm_exhausted", "fault", "medium", 60,
        "posix_fallocate of a shared-memory segment failed: No space left on device",
        "Growing a shared-memory file failed because /dev/shm is full (in GPU jobs these "
        "segments are NCCL's or the DataLoader's).\n" + _SHM_FIX,
        "posix_fallocate(3) returning ENOSPC, as logged by shared-memory code (NCCL include/shm.h "
        "/ src/misc/shmutils.cc 'Call to posix_fallocate failed : %s')",
        ("gpu2-ru7:2143:2561 [1] include/shm.h:28 NCCL WARN Call to posix_fallocate failed : No space left on device",),
    ),
    _sig(
        "os.disk_full",
        (r"No space left on device",),
        "other", "fault", "low", 30,
        "No space left on device (a filesystem is full)",
        "A write failed because a filesystem is full. If it is /dev/shm, it is shared-memory "
        "exhaustion (see the /dev/shm entry); otherwise checkpoints, logs or caches filled the "
        "disk:\n$ df -h; df -h /dev/shm /tmp\n$ du -sh ~/.cache/* /tmp/* 2>/dev/null | sort -h | tail",
        "strerror(ENOSPC) 'No space left on device'",
        ("OSError: [Errno 28] No space left on device",
         "RuntimeError: unable to write to file </torch_18692_1954506624_0>: No space left on device (28)"),
    ),
)

# PCIe, IOMMU and host hardware.
PCIE: tuple[Signature, ...] = (
    _sig(
        "kernel.iommu.amd_io_page_fault",
        (r"AMD-Vi: Event logged \[IO_PAGE_FAULT", r"IO_PAGE_FAULT domain=0x[0-9a-f]+ address=0x"),
        "p2p_unsupported", "fault", "high", 80,
        "AMD IOMMU blocked a device DMA (IO_PAGE_FAULT)",
        _IOMMU_FIX,
        "Linux drivers/iommu/amd/iommu.c amd_iommu_report_page_fault / iommu_print_event "
        "'Event logged [IO_PAGE_FAULT domain=0x%04x address=0x%llx flags=0x%04x]'",
        ("[  123.4] nvidia 0000:41:00.0: AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x000d address=0x3c00001000 flags=0x0020]",
         "[  123.4] AMD-Vi: Event logged [IO_PAGE_FAULT device=41:00.0 domain=0x0000 address=0x000000fd00000000 flags=0x0020]",
         "iommu ivhd0: AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x0000 address=0x8a1c0000 flags=0x0000]"),
        extract=r"(?P<device_bdf>[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]): AMD-Vi",
    ),
    _sig(
        "kernel.iommu.dmar_fault",
        (r"DMAR: \[DMA (?:Read|Write)[^\]]*\] Request device \[", r"DMAR: DRHD: handling fault status reg",
         r"DMAR: \[INTR-REMAP\] Request device \["),
        "p2p_unsupported", "fault", "high", 80,
        "Intel IOMMU (VT-d/DMAR) blocked a device DMA",
        _IOMMU_FIX,
        "Linux drivers/iommu/intel/dmar.c dmar_fault_do_one 'DMAR: [%s] Request device "
        "[%02x:%02x.%d] fault addr 0x%llx [fault reason 0x%02x] %s' and 'DRHD: handling fault "
        "status reg %x' (3.x-6.x; 5.10+ adds NO_PASID / PASID)",
        ("[  301.2] DMAR: DRHD: handling fault status reg 2",
         "[  301.2] DMAR: [DMA Read] Request device [3b:00.0] fault addr 0x7f400000 [fault reason 0x06] PTE Read access is not set",
         "[  301.3] DMAR: [DMA Write NO_PASID] Request device [b1:00.0] fault addr 0xfc000000 [fault reason 0x05] PTE Write access is not set"),
        extract=r"Request device \[(?:[0-9a-f]{4}:)?(?P<device_bdf>[0-9a-f]{2}:[0-9a-f]{2}\.[0-7])\]",
    ),
    _sig(
        "kernel.iommu.arm_smmu_event",
        (r"arm-smmu-v3 \S+: event 0x[0-9a-f]+ received",),
        "p2p_unsupported", "fault", "medium", 60,
        "ARM SMMU reported a translation fault for a device DMA",
        _IOMMU_FIX,
        "Linux drivers/iommu/arm/arm-smmu-v3/arm-smmu-v3.c arm_smmu_evtq_thread 'event 0x%02x received:'",
        ("[  88.1] arm-smmu-v3 arm-smmu-v3.3.auto: event 0x10 received:",),
    ),
    _sig(
        "kernel.aer.uncorrected_fatal",
        (r"PCIe Bus Error: severity=Uncorrected \(Fatal\)", r"AER: (?:Multiple )?Uncorrected \(Fatal\) error",
         r"PCIe Bus Error: severity=Uncorrectable \(Fatal\)"),
        "hardware_fault", "fault", "high", 85,
        "PCIe uncorrected FATAL error (AER)",
        _AER_FIX,
        "Linux drivers/pci/pcie/aer.c aer_print_error 'PCIe Bus Error: severity=%s, type=%s, (%s)' "
        "and aer_isr_one_error '%s%s error message received from %s' / 'AER: %s error received: %s'",
        ("[ 5123.1] pcieport 0000:00:03.1: AER: Uncorrected (Fatal) error received: 0000:3b:00.0",
         "[ 5123.1] nvidia 0000:3b:00.0: PCIe Bus Error: severity=Uncorrected (Fatal), type=Transaction Layer, (Requester ID)",
         "pcieport 0000:00:01.0: AER: Multiple Uncorrected (Fatal) error received: 0000:01:00.0"),
        extract=r"(?P<device_bdf>[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7])(?:: (?:AER|PCIe))",
    ),
    _sig(
        "kernel.aer.uncorrected_nonfatal",
        (r"PCIe Bus Error: severity=Uncorrected \(Non-Fatal\)", r"AER: (?:Multiple )?Uncorrected \(Non-Fatal\) error"),
        "hardware_fault", "fault", "medium", 70,
        "PCIe uncorrected (non-fatal) error (AER)",
        _AER_FIX,
        "Linux drivers/pci/pcie/aer.c 'PCIe Bus Error: severity=Uncorrected (Non-Fatal), ...'",
        ("[ 5123.1] pcieport 0000:00:03.0: PCIe Bus Error: severity=Uncorrected (Non-Fatal), type=Transaction Layer, (Requester ID)",
         "pcieport 0000:00:03.0: AER: Uncorrected (Non-Fatal) error received: 0000:03:00.0"),
        extract=r"(?P<device_bdf>[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7])(?:: (?:AER|PCIe))",
    ),
    _sig(
        "kernel.aer.corrected",
        (r"PCIe Bus Error: severity=Corrected", r"AER: (?:Multiple )?Corrected error received"),
        "hardware_fault", "fault", "low", 30,
        "PCIe corrected errors (AER): a marginal link if they repeat",
        "The PCIe hardware corrected a link error. A few are harmless; a steady stream (replay/"
        "timeout, Data Link Layer) on a GPU or the port above it means a marginal link that can "
        "end with the GPU falling off the bus.\n" + _AER_FIX,
        "Linux drivers/pci/pcie/aer.c 'PCIe Bus Error: severity=Corrected, type=%s, (%s)' and "
        "'AER: Corrected error received: %s'",
        ("[ 8123.456789] pcieport 0000:40:01.1: PCIe Bus Error: severity=Corrected, type=Physical Layer, (Receiver ID)",
         "[Tue Dec  1 10:00:00 2026] pcieport 0000:40:01.1: AER: Multiple Corrected error received: 0000:41:00.0"),
        extract=r"(?P<device_bdf>[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7])(?:: (?:AER|PCIe))",
    ),
    _sig(
        "kernel.pcie.dpc_containment",
        (r"DPC: containment event, status:",),
        "hardware_fault", "fault", "high", 80,
        "PCIe Downstream Port Containment: a link was shut down after an uncorrectable error",
        "The PCIe port isolated the device below it after a fatal error; a GPU or NIC there is "
        "gone until recovery/reboot.\n" + _AER_FIX,
        "Linux drivers/pci/pcie/dpc.c dpc_process_error 'containment event, status:%#06x source:%#06x'",
        ("[ 5123.2] pcieport 0000:00:01.1: DPC: containment event, status:0x1f01 source:0x0000",),
        extract=r"(?P<device_bdf>[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]): DPC",
    ),
    _sig(
        "kernel.pcie.hotplug_link_down",
        (r"pciehp \S+: Slot\(\S+\): Link Down", r"pciehp \S+: Slot\(\S+\): Card not present"),
        "hardware_fault", "fault", "medium", 70,
        "PCIe slot link went down (device lost from the bus)",
        "The PCIe hot-plug controller saw the slot's link go down: the device in it (GPU/NIC) "
        "disappeared. Check power and the riser, and the kernel log around it.\n" + _AER_FIX,
        "Linux drivers/pci/hotplug/pciehp_ctrl.c 'Slot(%s): Link Down' / 'Card not present'",
        ("[ 812.3] pcieport 0000:80:01.0: pciehp 0000:80:01.0:pcie004: Slot(1): Link Down",),
    ),
    _sig(
        "kernel.mce.hardware_error",
        (r"mce: \[Hardware Error\]", r"Machine check events logged"),
        "hardware_fault", "fault", "medium", 60,
        "Machine check (host CPU / memory / PCIe hardware error)",
        "The host CPU reported a machine check: a host memory, cache or bus error. Drain the node "
        "and have the host hardware checked:\n$ ras-mc-ctl --errors; mcelog --client\n"
        "$ ipmitool sel list | tail -20",
        "Linux arch/x86/kernel/cpu/mce/core.c '[Hardware Error]: ...' and 'Machine check events logged'",
        ("[ 7001.1] mce: [Hardware Error]: Machine check events logged",
         "[ 7001.1] mce: [Hardware Error]: CPU 12: Machine Check: 0 Bank 7: be00000000800400"),
    ),
    _sig(
        "kernel.edac.uncorrected",
        (r"EDAC \S+: \d+ UE ", r"EDAC \S+: \d+ (?:Uncorrected|uncorrected) error"),
        "hardware_fault", "fault", "high", 80,
        "Uncorrectable host memory (DIMM) error (EDAC)",
        "A host DIMM had an uncorrectable error; processes using that memory may crash. Drain "
        "the node and replace the DIMM:\n$ ras-mc-ctl --errors\n$ edac-util -v",
        "Linux drivers/edac/edac_mc.c edac_mc_handle_error '%d %s error(s): ...' (UE / CE)",
        ("[ 9001.2] EDAC MC0: 1 UE memory read error on CPU_SrcID#0_Ha#0_Chan#1_DIMM#0 (channel:1 slot:0 page:0x123 offset:0x0 grain:32)",),
    ),
    _sig(
        "kernel.edac.corrected",
        (r"EDAC \S+: \d+ CE ",),
        "hardware_fault", "context", "low", 15,
        "Correctable host memory errors (EDAC)",
        "Correctable DIMM errors; harmless unless they become frequent.\n$ ras-mc-ctl --errors",
        "Linux drivers/edac/edac_mc.c '%d CE ...'",
        ("[ 9001.2] EDAC MC1: 1 CE memory read error on CPU_SrcID#1_Ha#0_Chan#0_DIMM#1 (channel:0 slot:1 page:0x55 offset:0x0)",),
    ),
)

# NVIDIA kernel module (NVRM) lines that are not Xids, and NVIDIA host daemons.
NVIDIA: tuple[Signature, ...] = (
    _sig(
        "kernel.nvrm.fallen_off_bus",
        (r"NVRM: GPU \S+: GPU has fallen off the bus", r"NVRM: GPU at PCI:\S+ has fallen off the bus",
         r"NVRM: fallen off the bus and is not responding to commands",
         r"NVRM: GPU at PCI:\S+: GPU has fallen off the bus", r"NVRM: .*\bhas fallen off the bus"),
        "hardware_fault", "fault", "high", 92,
        "GPU has fallen off the bus (NVRM)",
        "GPU {bus_id} stopped answering on PCIe (power, thermal, PCIe link, firmware or a dying "
        "GPU). Drain the node; it needs a reboot, often a power cycle; RMA if it recurs:\n"
        "$ dmesg -T | grep -E 'Xid|fallen off|AER'\n"
        "$ ipmitool sel list | tail -20",
        "open-gpu-kernel-modules src/nvidia/arch/nvalloc/unix/src/osinit.c (NV_DEV_PRINTF "
        "'NVRM: GPU %04x:%02x:%02x.%x: GPU has fallen off the bus.'), osapi.c ('NVRM: The NVIDIA "
        "GPU ... installed in this system has' / 'NVRM: fallen off the bus and is not responding "
        "to commands.'), R3xx-595",
        ("[ 8123.5] NVRM: GPU 0000:3b:00.0: GPU has fallen off the bus.",
         "NVRM: GPU at PCI:0000:3b:00 has fallen off the bus.",
         "[ 8123.6] NVRM: fallen off the bus and is not responding to commands.",
         "kernel: NVRM: GPU at PCI:0000:3b:00: GPU has fallen off the bus."),
        extract=r"NVRM: GPU (?:at PCI:)?(?P<bus_id>[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2})",
    ),
    _sig(
        "kernel.nvrm.gsp_timeout",
        (r"NVRM: .*\*+ GSP Timeout \*+", r"Timeout after \d+m?s of waiting for RPC response from GPU\d+ GSP!",
         r"NVRM: .*_kgspIsHeartbeatTimedOut", r"NVRM: .*=+ GSP(?: core|-RM) unresponsive =+",
         r"NVRM: .*=+ GSP-RM is slow =+", r"NVRM: .*(?:GSP RM|LibOS) heartbeat timed out",
         r"NVRM: .*Heartbeat timed out, currentTimeMs", r"sanity check failed \S+ waiting for RPC response from GSP"),
        "hardware_fault", "fault", "medium", 78,
        "GSP firmware stopped answering the driver (NVRM, without an Xid line)",
        "The GPU System Processor firmware on {gpu_index} timed out; the GPU is unusable until it "
        "is reset or the node rebooted, and CUDA on it then fails ('busy or unavailable', 'unknown "
        "error'). Reset/reboot; update the driver, or load it with GSP off to confirm; drain the "
        "node if it recurs:\n"
        "$ dmesg -T | grep -E 'NVRM' | tail -50\n"
        "$ nvidia-smi -q | grep -iE 'GSP Firmware|Recovery'\n"
        "$ modprobe nvidia NVreg_EnableGpuFirmware=0   # proprietary module only, to confirm",
        "open-gpu-kernel-modules src/nvidia/src/kernel/gpu/gsp/kernel_gsp.c _kgspLogXid119 "
        "('********************************* GSP Timeout **********************************', "
        "'Timeout after %ds of waiting for RPC response from GPU%d GSP!'), _kgspIsHeartbeatTimedOut "
        "(535-595); _kgspClassifyGspTimeout ('GSP core unresponsive' / 'GSP-RM unresponsive' / 'GSP-RM is "
        "slow'), _kgspRpcRecvPoll ('GSP RM heartbeat timed out', 'LibOS heartbeat timed out'), "
        "_kgspLogRpcSanityCheckFailure (595)",
        ("[ 9241.77] NVRM: GPU0 _kgspLogXid119: ********************************* GSP Timeout **********************************",
         "[ 9241.78] NVRM: GPU0 _kgspClassifyGspTimeout: =============== GSP-RM unresponsive ==================",
         "kernel: NVRM: GPU3 _kgspRpcRecvPoll: GSP RM heartbeat timed out",
         "[ 9241.79] NVRM: GPU1 _kgspLogRpcSanityCheckFailure: GPU1 sanity check failed 0xbadf5620 waiting for RPC response from GSP. Expected function 76 (GSP_RM_CONTROL) sequence 1203 (0x20801348 0x4).",
         "kernel: NVRM: Timeout after 45s of waiting for RPC response from GPU3 GSP! Expected function 10 (FREE) (0xa55a0040 0x0).",
         "[ 9241.80] NVRM: GPU1 _kgspIsHeartbeatTimedOut: Heartbeat timed out, last heartbeat 9210s"),
        extract=r"(?P<gpu_index>GPU\d+)",
    ),
    _sig(
        "kernel.nvrm.gpu_is_lost",
        (r"\[NV_ERR_GPU_IS_LOST\]", r"NVRM: .*GPU lost from the bus"),
        "hardware_fault", "fault", "high", 88,
        "The driver lost the GPU (NV_ERR_GPU_IS_LOST)",
        "The GPU stopped answering on PCIe (as with 'fallen off the bus'): every process on it is "
        "gone. Drain the node; it needs a reboot, often a power cycle; RMA if it recurs:\n"
        "$ dmesg -T | grep -E 'NVRM|AER'\n$ nvidia-smi",
        "open-gpu-kernel-modules src/nvidia/inc/kernel/core/ (NV_STATUS strings, "
        "nvstatuscodes.h NV_ERR_GPU_IS_LOST 'GPU lost from the bus') printed by NV_ASSERT_OK / "
        "nvCheckOkFailed as '... [NV_ERR_GPU_IS_LOST] (0x0000000F)'",
        ("[ 812.2] NVRM: nvAssertOkFailedNoLog: Assertion failed: GPU lost from the bus [NV_ERR_GPU_IS_LOST] (0x0000000F) returned from pRmApi->Control",
         "NVRM: rpcRmApiControl_GSP: GspRmControl failed: hClient=0xc1d00032; hObject=0x5c000003; cmd=0x20800a4c; paramsSize=4; paramsStatus=0x0000000f [NV_ERR_GPU_IS_LOST]"),
    ),
    _sig(
        "nvidia.reset_required",
        (r"(?i)NVRM: .*\b(?:requires|needs) (?:a )?(?:GPU )?reset\b", r"(?i)\bGPU requires (?:a )?reset\b",
         r"^\s*Reset Required\s*:\s*Yes\b"),
        "hardware_fault", "fault", "medium", 76,
        "The GPU needs a reset before it can be used again",
        "The driver marked the GPU as needing a reset (after an uncontained error, a GSP/firmware "
        "failure or a pending row remap); until then CUDA calls on it fail ('busy or unavailable'). "
        "Stop the processes on it and reset it, or reboot; drain it if it recurs:\n"
        "$ nvidia-smi -q | grep -iE -A2 'reset status|recovery action|remapp'\n"
        "$ nvidia-smi -r -i <gpu>",
        "NVML NVML_ERROR_RESET_REQUIRED ('GPU requires reset'); nvidia-smi -q 'GPU Reset Status / "
        "Reset Required : Yes' (R535+); NVRM recovery-action texts",
        ("NVRM: GPU 0000:41:00.0: GPU requires reset before it can be used again",
         "Failed to initialize NVML: GPU requires reset",
         "        Reset Required                    : Yes"),
    ),
    _sig(
        "kernel.nvrm.api_mismatch",
        (r"NVRM: API mismatch: the client", r"NVRM: has the version \S+, but this kernel module has",
         r"NVRM: kernel module and all NVIDIA driver components"),
        "version_mismatch", "fault", "high", 88,
        "NVIDIA kernel module and user-space driver versions differ (NVRM API mismatch)",
        "A user-space NVIDIA component ({client}) has another version than the loaded kernel "
        "module: the driver was upgraded without a reboot, or a container brings its own driver "
        "libraries. Make them equal (reboot, or reinstall matching packages):\n"
        "$ cat /proc/driver/nvidia/version\n"
        "$ nvidia-smi\n"
        "$ dpkg -l | grep -E 'nvidia-(driver|utils|compute)' || rpm -qa | grep -i nvidia",
        "open-gpu-kernel-modules src/nvidia/arch/nvalloc/unix/src/osapi.c 'NVRM: API mismatch: the "
        "client '%s' (pid %u)' / 'NVRM: has the version %s, but this kernel module has' (R3xx-595)",
        ("[ 3001.2] NVRM: API mismatch: the client 'nvidia-smi' (pid 24141)",
         "[ 3001.2] NVRM: has the version 550.127.05, but this kernel module has",
         "NVRM: kernel module and all NVIDIA driver components"),
        extract=r"the client '(?P<client>[^']*)' \(pid (?P<pid>\d+)\)",
    ),
    _sig(
        "kernel.nvrm.loading_module",
        (r"NVRM: loading NVIDIA UNIX \S+ Kernel Module +\S+",),
        None, "context", "high", 10,
        "NVIDIA kernel module loaded (driver version)",
        "Driver {driver_version} was loaded at this time; compare across nodes.",
        "open-gpu-kernel-modules kernel-open/nvidia/nv.c 'NVRM: loading %s' (NV_VERSION_STRING banner)",
        ("[    5.1] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.127.05  Tue Oct  8 03:25:51 UTC 2024",
         "[    5.1] NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  595.45.04  Release Build"),
        extract=r"Kernel Module(?: for \S+)? +(?P<driver_version>\d+\.\d+(?:\.\d+)?)",
    ),
    _sig(
        "kernel.nvrm.rm_init_adapter_failed",
        (r"NVRM: (?:GPU \S+: )?RmInitAdapter failed!",
         r"NVRM: (?:GPU \S+: )?rm_init_adapter failed, device minor number \d+"),
        "hardware_fault", "fault", "medium", 78,
        "NVIDIA driver failed to initialise a GPU (RmInitAdapter failed)",
        "The driver could not bring up a GPU: firmware/GSP failure, a GPU that fell off the bus, "
        "or an incompatible driver (too old for the GPU, or the open module on an unsupported "
        "GPU). Check the lines before it; reboot; try the other kernel-module flavour or a newer "
        "driver; RMA if it persists:\n"
        "$ dmesg -T | grep -E 'NVRM' | head -50\n"
        "$ lspci -d 10de: -nn",
        "open-gpu-kernel-modules src/nvidia/arch/nvalloc/unix/src/osinit.c 'RmInitAdapter "
        "failed! (0x%x:0x%x:%d)'; kernel-open/nvidia/nv.c 'rm_init_adapter failed, device minor "
        "number %d'",
        ("[   12.3] NVRM: GPU 0000:3b:00.0: RmInitAdapter failed! (0x26:0xffff:1485)",
         "[   12.3] NVRM: GPU 0000:3b:00.0: rm_init_adapter failed, device minor number 0",
         "NVRM: RmInitAdapter failed! (0x62:0x0:1606)"),
        extract=r"NVRM: GPU (?P<bus_id>[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2})",
    ),
    _sig(
        "kernel.nvrm.power_cables",
        (r"NVRM: (?:GPU \S+: )?GPU does not have the necessary power cables connected",),
        "hardware_fault", "fault", "high", 85,
        "GPU lacks external power (power cables not connected)",
        "The driver refused GPU {bus_id}: its auxiliary power is missing (cable unplugged or a "
        "PSU/riser fault). Fix the power connection; the GPU stays unusable until then.\n"
        "$ nvidia-smi -q -d POWER\n$ ipmitool sel list | tail -20",
        "open-gpu-kernel-modules src/nvidia/arch/nvalloc/unix/src/osinit.c (NV_ERR_INSUFFICIENT_POWER: "
        "'GPU does not have the necessary power cables connected.')",
        ("[   12.3] NVRM: GPU 0000:3b:00.0: GPU does not have the necessary power cables connected.",),
        extract=r"NVRM: GPU (?P<bus_id>[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2})",
    ),
    _sig(
        "kernel.nvrm.probe_failed",
        (r"NVRM: The NVIDIA probe routine (?:was not called|failed) for \d+ device",),
        "version_mismatch", "fault", "medium", 65,
        "NVIDIA driver probe failed (GPU not supported by this driver, or claimed by another driver)",
        "The kernel module did not take the GPU: the driver does not support it (too old or too "
        "new), or another driver (nouveau, vfio-pci) holds it:\n"
        "$ lspci -k -d 10de:   # 'Kernel driver in use'\n"
        "$ lsmod | grep -E 'nouveau|vfio'",
        "open-gpu-kernel-modules kernel-open/nvidia/nv-pci.c / nv.c 'NVRM: The NVIDIA probe "
        "routine was not called for %d device(s).' / 'failed for %d device(s).'",
        ("[    6.2] NVRM: The NVIDIA probe routine failed for 1 device(s).",),
    ),
    _sig(
        "kernel.nvrm.nvlink_fatal",
        (r"(?i)NVRM: .*nvlink.*fatal", r"(?i)NVRM: .*nvlink.*(?:training failed|failed to train)"),
        "hardware_fault", "fault", "high", 85,
        "NVLink fatal error / training failure (NVRM)",
        "An NVLink link of this node failed. Drain the node, check links and the NVSwitch "
        "fabric, reset the GPUs or reboot:\n"
        "$ nvidia-smi nvlink -s; nvidia-smi nvlink -e\n"
        "$ systemctl status nvidia-fabricmanager\n"
        "$ dcgmi diag -r 3",
        "open-gpu-kernel-modules src/nvidia/src/kernel/gpu/nvlink/*.c (NVLink fatal error / link "
        "training messages logged by NVRM)",
        ("[ 4001.1] NVRM: NVLink: fatal error detected on link 3(0x10000, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0)",
         "NVRM: nvlink: link training failed for link 5"),
    ),
    _sig(
        "nvidia.fabricmanager.failed",
        (r"(?i)nvidia-fabricmanager(?:\.service)?.*(?:fail\w*|error|inactive|dead)",
         r"(?i)fabric ?manager.*(?:failed|not running|not compatible|version mismatch|error)",
         r"(?i)nv-fabricmanager.*(?:failed|error)"),
        "hardware_fault", "fault", "medium", 78,
        "NVIDIA Fabric Manager failed or is not running (NVSwitch fabric down)",
        _FM_FIX,
        "nvidia-fabricmanager daemon log (/var/log/fabricmanager.log) and its systemd unit; "
        "messages vary by release (R450-R595)",
        ("Dec 01 14:22:01 node-b systemd[1]: nvidia-fabricmanager.service: Failed with result 'exit-code'.",
         "[ERROR] [tid 4242] Fabric Manager version 550.54.15 is not compatible with driver version 550.127.05",
         "Dec 01 14:22:01 node-b nv-fabricmanager[4242]: request to query NVSwitch device information from NVSwitch driver failed with error:WARNING"),
    ),
    _sig(
        "nvidia.fabricmanager.nvswitch_error",
        (r"(?i)NVSwitch.*(?:fatal|uncorrectable|failed|degraded)",),
        "hardware_fault", "fault", "medium", 70,
        "NVSwitch error reported (fatal, failed or degraded)",
        _FM_FIX + "\n$ dmesg -T | grep -E 'SXid'",
        "Fabric Manager and nvidia-nvswitch driver messages naming an NVSwitch failure",
        ("[ERROR] [tid 4242] detected NVSwitch fatal error 20034 on fid 0 on NVSwitch pci bus id 00000000:86:00.0 physical id 3 port 45",
         "NVSwitch 3 is degraded; GPU partitions using it are unavailable"),
    ),
    _sig(
        "nvidia.persistenced.failed",
        (r"nvidia-persistenced(?:\[\d+\])?: .*(?:Failed|failed|error|Error)",),
        "hardware_fault", "fault", "low", 35,
        "nvidia-persistenced failed (driver / device access problem)",
        "The persistence daemon could not open or initialise a GPU: often a GPU that is in a bad "
        "state or missing device files, sometimes a version mismatch after an upgrade:\n"
        "$ systemctl status nvidia-persistenced\n$ ls -l /dev/nvidia*\n$ nvidia-smi",
        "nvidia-persistenced (NVIDIA/nvidia-persistenced) syslog messages",
        ("Dec 01 14:22:01 node-b nvidia-persistenced[1234]: Failed to query NVIDIA devices. Please "
         "ensure that the NVIDIA device files (/dev/nvidia*) exist, and that user 0 has read and "
         "write permissions for those files.",),
    ),
)

# Network interfaces: NIC / IB port state in the kernel log.
NIC: tuple[Signature, ...] = (
    _sig(
        "kernel.nic.mlx5_link_down",
        (r"mlx5_core \S+ \S+: Link down", r"mlx5_core \S+: \S+: Link down"),
        "network", "fault", "high", 80,
        "Mellanox/NVIDIA NIC link went down (mlx5)",
        _NIC_FIX,
        "Linux drivers/net/ethernet/mellanox/mlx5/core/en_main.c mlx5e_update_carrier "
        "netdev_info 'Link down'",
        ("[ 9001.1] mlx5_core 0000:0c:00.0 enp12s0f0np0: Link down",
         "Dec  1 14:22:01 node-b kernel: mlx5_core 0000:3b:00.0 ib0: Link down"),
        extract=r"mlx5_core \S+ (?P<iface>[^:\s]+): Link down",
    ),
    _sig(
        "kernel.nic.mlx5_health",
        (r"mlx5_core \S+: .*(?:Fatal error \d+ detected|device's health compromised|internal error|"
         r"health: (?:bad|critical))", r"mlx5_core \S+: mlx5_health_\w+",
         r"mlx5_core \S+: Port module event: module \d+, Cable (?:unplugged|error)"),
        "network", "fault", "high", 82,
        "Mellanox/NVIDIA NIC firmware/health error or cable event (mlx5)",
        "The HCA reported a firmware/health failure or a cable problem; IB/RoCE traffic through "
        "it fails until it recovers. Check the device, firmware and cable:\n"
        "$ dmesg -T | grep mlx5 | tail -30\n"
        "$ mlxlink -d <dev> -m   # cable and link diagnostics\n"
        "$ ibstat",
        "Linux drivers/net/ethernet/mellanox/mlx5/core/health.c ('Fatal error %d detected', "
        "'device's health compromised'), events.c ('Port module event: module %u, Cable %s')",
        ("[ 9001.1] mlx5_core 0000:3b:00.0: poll_health:835:(pid 0): Fatal error 1 detected",
         "[ 9001.1] mlx5_core 0000:3b:00.0: mlx5_health_try_recover:324:(pid 1234): handling bad device here",
         "[ 9001.1] mlx5_core 0000:3b:00.0: Port module event: module 0, Cable unplugged"),
    ),
    _sig(
        "kernel.nic.ib_port_down",
        (r"(?i)port \d+ state changed to (?:DOWN|INIT|POLLING)", r"(?i)port \d+ (?:active|armed) ?-> ?down"),
        "network", "fault", "medium", 72,
        "InfiniBand port state changed to DOWN",
        _NIC_FIX,
        "IB port state change events (ib_core / opensm / mlx5_ib logs: 'port %d state changed to %s')",
        ("[ 9001.1] mlx5_ib: mlx5_0 port 1 state changed to DOWN",
         "infiniband mlx5_2: port 1 state changed to INIT"),
    ),
    _sig(
        "kernel.nic.carrier_lost",
        (r"(?i)(?:ib|eth|en|bond|enp|ens|eno)\S*: .*(?:carrier lost|lost carrier)",
         r"(?i)device \((?:ib|eth|en|bond)\S*\): carrier: link (?:disconnected|down)"),
        "network", "fault", "medium", 65,
        "Network interface lost carrier",
        _NIC_FIX,
        "kernel netdev / IPoIB and NetworkManager messages ('carrier lost', 'link disconnected')",
        ("[ 9001.1] ib0: Link went down, carrier lost",
         "Dec 01 14:22:01 node-b NetworkManager[812]: <info>  [1733062921.1] device (ib0): carrier: link disconnected"),
        extract=r"(?:device \()?(?P<iface>(?:ib|eth|en|bond|enp|ens|eno)[^:\s)]*)",
    ),
    _sig(
        "kernel.nic.tx_timeout",
        (r"NETDEV WATCHDOG: \S+ \(\S+\): transmit queue \d+ timed out",),
        "network", "fault", "medium", 65,
        "NIC transmit queue timed out (NETDEV WATCHDOG)",
        "The NIC stopped sending on a queue (driver/firmware hang or a link problem); the driver "
        "usually resets it, dropping connections. Check the NIC's health and firmware:\n"
        "$ dmesg -T | grep -E 'NETDEV WATCHDOG|mlx5|tx_timeout'\n"
        "$ ethtool -S {iface} | grep -i -E 'err|drop|timeout'",
        "Linux net/sched/sch_generic.c dev_watchdog 'NETDEV WATCHDOG: %s (%s): transmit queue %u "
        "timed out'",
        ("[ 9001.1] NETDEV WATCHDOG: enp12s0f0np0 (mlx5_core): transmit queue 3 timed out 5120 ms",),
        extract=r"NETDEV WATCHDOG: (?P<iface>\S+) \((?P<driver>[^)]*)\)",
    ),
    _sig(
        "kernel.nic.nic_link_down",
        (r"(?i)NIC Link is Down",),
        "network", "fault", "medium", 70,
        "Ethernet NIC link is down (ice/i40e/ixgbe/bnxt)",
        _NIC_FIX,
        "Linux Intel ice/i40e/ixgbe and Broadcom bnxt_en drivers 'NIC Link is Down'",
        ("[ 9001.1] ice 0000:17:00.0 ens1f0: NIC Link is Down",
         "bnxt_en 0000:41:00.0 enp65s0f0np0: NIC Link is Down"),
        extract=r"\S+ \S+ (?P<iface>[^:\s]+): NIC Link is Down",
    ),
)

# Process crashes seen from the kernel, glibc, libstdc++ and the shell.
CRASH: tuple[Signature, ...] = (
    _sig(
        "kernel.segfault.libnccl",
        (r"segfault at [0-9a-f]+ ip [0-9a-f]+ sp [0-9a-f]+ error \d+ in libnccl\S*",
         r"general protection fault ip:[0-9a-f]+ sp:[0-9a-f]+ error:[0-9a-f]+ in libnccl\S*"),
        "rank_crash", "fault", "high", 82,
        "A rank segfaulted inside libnccl (kernel segfault line)",
        _CRASH_FIX,
        "Linux arch/x86/mm/fault.c show_signal_msg '%s%s[%d]: segfault at %lx ip %px sp %px error "
        "%lx in %s[%lx+%lx]'; arch/x86/kernel/traps.c 'traps: %s[%d] general protection fault ...'",
        ("[ 4242.1] python[24141]: segfault at 18 ip 00007f3c2a4b1c2e sp 00007f3b0effc8d0 error 4 in libnccl.so.2[7f3c2a400000+1a2e000]",
         "[ 4242.1] pt_main_thread[24141]: segfault at 0 ip 00007f3c2a4b1c2e sp 00007f3b0effc8d0 error 6 in libnccl.so.2.21.5[7f3c2a400000+1a2e000] likely on CPU 3 (core 3, socket 0)",
         "traps: python[24141] general protection fault ip:7f3c2a4b1c2e sp:7f3b0effc8d0 error:0 in libnccl.so.2[7f3c2a400000+1a2e000]"),
        extract=r"(?P<process>[^\s\[]+)\[(?P<pid>\d+)\]:? (?:segfault|general protection).*? in (?P<library>\S+?)\[",
    ),
    _sig(
        "kernel.segfault.any",
        (r"\[\d+\]: segfault at [0-9a-f]+ ip [0-9a-f]+ sp [0-9a-f]+ error \d+",
         r"traps: \S+\[\d+\] (?:general protection fault|trap invalid opcode|trap divide error)"),
        "rank_crash", "fault", "medium", 70,
        "A process segfaulted or trapped (kernel segfault/trap line)",
        _CRASH_FIX,
        "Linux arch/x86/mm/fault.c show_signal_msg; arch/x86/kernel/traps.c do_trap / "
        "do_general_protection ('traps: %s[%d] %s ip:%lx sp:%lx error:%lx')",
        ("[ 4242.1] python[24141]: segfault at 7f0000000000 ip 00007f3c2a4b1c2e sp 00007f3b0effc8d0 error 4 in libtorch_cuda.so[7f3c00000000+5000000]",
         "[ 4242.1] traps: python[24141] trap invalid opcode ip:7f3c2a4b1c2e sp:7ffd0effc8d0 error:0 in libc.so.6[7f3c2a400000+195000]"),
        extract=r"(?P<process>[^\s\[]+)\[(?P<pid>\d+)\]:? (?:segfault|general protection|trap)(?:.*? in (?P<library>\S+?)\[)?",
    ),
    _sig(
        "shell.segfault",
        (r"Segmentation fault \(core dumped\)", r"Fatal Python error: Segmentation fault",
         r"(?:^|\s)Segmentation fault\s*$", r"(?i)caught signal 11 \(segmentation fault",
         r": line \d+: +\d+ Segmentation fault"),
        "rank_crash", "fault", "medium", 68,
        "Process died of SIGSEGV (Segmentation fault)",
        _CRASH_FIX,
        "shell job status 'Segmentation fault (core dumped)' (strsignal(SIGSEGV)); CPython "
        "faulthandler 'Fatal Python error: Segmentation fault'; UCX 'Caught signal 11 "
        "(Segmentation fault: address not mapped to object at address ...)'",
        ("Segmentation fault (core dumped)",
         "Fatal Python error: Segmentation fault",
         "[node1:24141:0:24296] Caught signal 11 (Segmentation fault: address not mapped to object at address 0x18)",
         "/var/spool/slurmd/job123/slurm_script: line 12: 24141 Segmentation fault      python train.py"),
    ),
    _sig(
        "shell.aborted",
        (r"Aborted \(core dumped\)", r"Fatal Python error: Aborted", r"(?:^|\s)Aborted\s*$",
         r": line \d+: +\d+ Aborted"),
        "rank_crash", "fault", "low", 40,
        "Process aborted (SIGABRT)",
        "The process called abort(): an uncaught C++ exception, a failed assertion or glibc heap "
        "corruption. The line before it says why (a 'what():' text or a glibc message).\n"
        "$ coredumpctl gdb <pid>   # bt",
        "shell job status 'Aborted (core dumped)' (strsignal(SIGABRT)); CPython faulthandler",
        ("Aborted (core dumped)", "Fatal Python error: Aborted",
         "/var/spool/slurmd/job123/slurm_script: line 12: 24141 Aborted                 python train.py"),
    ),
    _sig(
        "systemd.coredump",
        (r"systemd-coredump\[\d+\]: Process \d+ \(\S+\) of user \d+ dumped core",),
        "rank_crash", "fault", "medium", 60,
        "A process dumped core (systemd-coredump)",
        _CRASH_FIX,
        "systemd src/coredump/coredump.c 'Process %s (%s) of user %s dumped core.'",
        ("Dec 01 14:22:01 node-b systemd-coredump[5555]: Process 24141 (python) of user 0 dumped core.",),
        extract=r"Process (?P<pid>\d+) \((?P<process>[^)]*)\)",
    ),
    _sig(
        "glibc.heap_corruption",
        (r"double free or corruption \((?:out|top|fasttop|!prev)\)",
         r"free\(\): (?:invalid pointer|invalid size|invalid next size \((?:fast|normal)\)|double free detected in tcache \d+|corrupted unsorted chunks)",
         r"malloc\(\): (?:corrupted top size|memory corruption|unsorted double linked list corrupted|invalid size \(unsorted\)|smallbin double linked list corrupted|mismatching next->prev_size)",
         r"corrupted size vs\. prev_size", r"corrupted double-linked list",
         r"munmap_chunk\(\): invalid pointer", r"realloc\(\): invalid (?:next size|pointer|old size)",
         r"malloc_consolidate\(\): invalid chunk size"),
        "rank_crash", "fault", "medium", 70,
        "glibc detected heap corruption and aborted the process",
        _GLIBC_FIX,
        "glibc malloc/malloc.c malloc_printerr texts (2.26-2.40)",
        ("double free or corruption (out)",
         "free(): invalid pointer",
         "malloc(): corrupted top size",
         "corrupted size vs. prev_size",
         "corrupted double-linked list",
         "munmap_chunk(): invalid pointer",
         "realloc(): invalid next size",
         "malloc_consolidate(): invalid chunk size",
         "[rank2]: free(): double free detected in tcache 2"),
    ),
    _sig(
        "glibc.stack_smashing",
        (r"\*\*\* stack smashing detected \*\*\*",),
        "rank_crash", "fault", "medium", 68,
        "Stack buffer overflow detected (stack smashing)",
        _GLIBC_FIX,
        "glibc debug/stack_chk_fail.c '*** stack smashing detected ***: terminated'",
        ("*** stack smashing detected ***: terminated",),
    ),
    _sig(
        "libstdcxx.terminate",
        (r"terminate called after throwing an instance of '[^']+'", r"terminate called without an active exception",
         r"terminate called recursively"),
        "rank_crash", "fault", "low", 40,
        "Uncaught C++ exception terminated the process",
        "A C++ exception escaped (often from a background thread such as the NCCL watchdog); the "
        "next 'what():' line holds the real error, match that.\n"
        "$ grep -n -A3 'terminate called' <log>",
        "libstdc++ libsupc++/vterminate.cc __verbose_terminate_handler 'terminate called after "
        "throwing an instance of '%s''",
        ("terminate called after throwing an instance of 'c10::DistBackendError'",
         "[rank1]: terminate called after throwing an instance of 'std::runtime_error'",
         "terminate called without an active exception"),
        extract=r"instance of '(?P<exception>[^']+)'",
    ),
    _sig(
        "kernel.hung_task",
        (r"INFO: task \S+:\d+ blocked for more than \d+ seconds",),
        "collective_timeout_straggler", "fault", "low", 45,
        "A process was blocked in the kernel for minutes (hung task)",
        "The kernel saw process {process} (pid {pid}) stuck in uninterruptible sleep: usually a "
        "filesystem (NFS/Lustre/GPFS) or a driver call that does not return, which makes that rank "
        "a straggler. Look at its kernel stack and the filesystem:\n"
        "$ cat /proc/{pid}/stack\n$ dmesg -T | grep -A20 'blocked for more than'",
        "Linux kernel/hung_task.c check_hung_task 'INFO: task %s:%d blocked for more than %ld seconds.'",
        ("[ 7200.1] INFO: task python:24141 blocked for more than 122 seconds.",),
        extract=r"task (?P<process>[^:\s]+):(?P<pid>\d+)",
    ),
    _sig(
        "kernel.oops",
        (r"BUG: unable to handle (?:page fault|kernel NULL pointer dereference|kernel paging request)",
         r"Kernel panic - not syncing:", r"general protection fault, probably for non-canonical address"),
        "other", "fault", "medium", 55,
        "Kernel oops / panic on the host",
        "The kernel itself crashed (often inside a driver: nvidia, mlx5, a filesystem). Read the "
        "module list and call trace that follow; update the offending driver or the kernel:\n"
        "$ journalctl -k -b -1 | grep -A40 -E 'BUG:|Oops|panic'",
        "Linux arch/x86/mm/fault.c page_fault_oops ('BUG: unable to handle page fault for address: "
        "%px'), kernel/panic.c ('Kernel panic - not syncing: %s'), arch/x86/kernel/traps.c",
        ("[ 9999.1] BUG: unable to handle page fault for address: ffffb3c0c1a2b000",
         "[ 9999.2] Kernel panic - not syncing: Fatal exception"),
    ),
    _sig(
        "kernel.soft_lockup",
        (r"watchdog: BUG: soft lockup - CPU#\d+ stuck for \d+s!", r"rcu: INFO: rcu_\w+ (?:self-)?detected stalls?"),
        "other", "fault", "low", 40,
        "CPU soft lockup / RCU stall on the host",
        "A CPU was stuck in the kernel for seconds (a driver spinning, often the GPU or NIC driver "
        "under errors, or an overloaded host). Read the stack printed after it.\n"
        "$ dmesg -T | grep -A30 'soft lockup'",
        "Linux kernel/watchdog.c 'BUG: soft lockup - CPU#%d stuck for %us! [%s:%d]'; kernel/rcu/tree_stall.h",
        ("[ 7200.1] watchdog: BUG: soft lockup - CPU#12 stuck for 22s! [python:24141]",
         "[ 7200.1] rcu: INFO: rcu_sched self-detected stall on CPU"),
    ),
)

# errno texts printed by socket code (low priority: NCCL / torch entries are more specific).
ERRNO: tuple[Signature, ...] = (
    _sig(
        "errno.connection_refused",
        (r"(?i)Connection refused",),
        "rendezvous_hang", "symptom", "low", 20,
        "Connection refused (nothing listening at the address: peer not started yet or dead)",
        "A connect() found no listener: at start-up the master/store or a peer was not up yet "
        "(wrong MASTER_ADDR/PORT, rank 0 crashed or slower to start); later, the peer process has "
        "died. Check the address and that the server side runs:\n"
        "$ echo $MASTER_ADDR $MASTER_PORT\n"
        "$ nc -zv $MASTER_ADDR $MASTER_PORT\n"
        "$ ss -ltnp | grep $MASTER_PORT   # on the master",
        _ERRNO_ORIGIN + "; ECONNREFUSED (111)",
        ("socketStartConnect: Connect to 10.0.0.2<40000> failed : Connection refused",
         "[W socket.cpp:663] [c10d] The client socket has failed to connect to [node-a]:29500 (errno: 111 - Connection refused)."),
    ),
    _sig(
        "errno.connection_reset",
        (r"(?i)Connection reset by peer",),
        "network", "symptom", "low", 20,
        "Connection reset by peer (the other side closed abruptly, usually because it died)",
        "The peer's socket was reset: most often the peer process crashed or was killed (look for "
        "the first failure on another rank), less often a network device dropping the "
        "connection.\n$ grep -l -E 'Traceback|Killed|segfault|Error' <logs of other ranks>",
        _ERRNO_ORIGIN + "; ECONNRESET (104)",
        ("socketProgressOpt: Call to recv from 172.16.0.3<33759> failed : Connection reset by peer",
         "RuntimeError: [3] is setting up NCCL communicator and retrieving ncclUniqueId from [0] via c10d key-value store by key '0', but store->get('0') got error: Connection reset by peer"),
    ),
    _sig(
        "errno.no_route_to_host",
        (r"(?i)No route to host",),
        "network", "symptom", "medium", 25,
        "No route to host (firewall or routing between nodes)",
        "The host is unreachable from this node: a firewall rejecting the port (EHOSTUNREACH is "
        "what iptables/firewalld 'reject' returns), a wrong interface/subnet, or the host is down:\n"
        "$ ping -c3 <peer>; ip route get <peer ip>\n"
        "$ sudo iptables -L -n | head; sudo firewall-cmd --list-all\n"
        "$ export NCCL_SOCKET_IFNAME=<iface>  GLOO_SOCKET_IFNAME=<iface>",
        _ERRNO_ORIGIN + "; EHOSTUNREACH (113)",
        ("trainer-2: torch.distributed.DistNetworkError: The client socket has failed to connect to 192.168.121.122:1040 (errno: 113 - No route to host).",),
    ),
    _sig(
        "errno.network_unreachable",
        (r"(?i)Network is unreachable",),
        "network", "symptom", "medium", 25,
        "Network is unreachable (no route on the chosen interface / address family)",
        "This node has no route to the peer's network: the wrong interface or address family "
        "(IPv6 link-local, a docker bridge) was selected, or the interface is down:\n"
        "$ ip -br addr; ip route\n"
        "$ export NCCL_SOCKET_IFNAME=<iface>  GLOO_SOCKET_IFNAME=<iface>",
        _ERRNO_ORIGIN + "; ENETUNREACH (101)",
        ("socketStartConnect: Connect to fe80::1%ib1<43291> failed : Network is unreachable",),
    ),
    _sig(
        "errno.connection_timed_out",
        (r"(?i)Connection timed out",),
        "network", "symptom", "low", 20,
        "Connection timed out (packets dropped: firewall, wrong address, or a host down)",
        "A connect() got no answer: a firewall silently dropping the port, an address on another "
        "network, or the peer host is down/overloaded:\n"
        "$ nc -zv -w5 <peer> <port>\n$ ip route get <peer ip>",
        _ERRNO_ORIGIN + "; ETIMEDOUT (110)",
        ("[E socket.cpp:860] [c10d] The client socket has timed out after 900s while trying to connect to (node-a, 29500). errno: 110 - Connection timed out",),
    ),
    _sig(
        "errno.name_not_known",
        (r"(?i)Name or service not known", r"(?i)Temporary failure in name resolution",
         r"(?i)nodename nor servname provided, or not known", r"(?i)No address associated with hostname"),
        "rendezvous_hang", "fault", "medium", 30,
        "Host name cannot be resolved (MASTER_ADDR or a peer's host name)",
        "A host name used for rendezvous or by NCCL/Gloo cannot be resolved on this node (wrong "
        "MASTER_ADDR, a container/pod hostname not in DNS, /etc/hosts missing the peers):\n"
        "$ echo $MASTER_ADDR; getent hosts $MASTER_ADDR\n"
        "$ hostname -f; getent hosts $(hostname)\n"
        "Use an IP address for MASTER_ADDR, or fix DNS / headless-service names.",
        "getaddrinfo gai_strerror EAI_NONAME 'Name or service not known' / EAI_AGAIN 'Temporary "
        "failure in name resolution' (glibc; macOS wording 'nodename nor servname provided')",
        ("socket.gaierror: [Errno -2] Name or service not known",
         "socket.gaierror: [Errno -3] Temporary failure in name resolution",
         "gloo/transport/tcp/device.cc:83] getaddrinfo: No address associated with hostname"),
    ),
    _sig(
        "errno.address_in_use",
        (r"(?i)Address already in use",),
        "rendezvous_hang", "fault", "medium", 30,
        "Address already in use (the rendezvous port is taken)",
        "A server could not bind its port: MASTER_PORT is used by another job on this node or by a "
        "leftover process from an earlier run. Pick another port or kill the leftover:\n"
        "$ ss -ltnp | grep $MASTER_PORT\n$ torchrun --master_port=$((29500 + RANDOM % 1000)) ...",
        _ERRNO_ORIGIN + "; EADDRINUSE (98)",
        ("RuntimeError: The server socket has failed to listen on any local network address. The server socket has failed to bind to [::]:29500 (errno: 98 - Address already in use).",),
    ),
    _sig(
        "errno.cannot_assign_address",
        (r"(?i)Cannot assign requested address",),
        "network", "fault", "medium", 30,
        "Cannot assign requested address (binding to an address this node does not have)",
        "A socket tried to bind/connect from an address that is not on this node: a wrong "
        "NCCL_SOCKET_IFNAME / MASTER_ADDR, a container on a bridge network, or ephemeral ports "
        "exhausted:\n$ ip -br addr\n$ echo $NCCL_SOCKET_IFNAME $MASTER_ADDR\n"
        "$ sysctl net.ipv4.ip_local_port_range",
        _ERRNO_ORIGIN + "; EADDRNOTAVAIL (99)",
        ("bootstrap.cc:95 NCCL WARN Call to bind failed : Cannot assign requested address",),
    ),
    _sig(
        "errno.broken_pipe",
        (r"(?i)Broken pipe",),
        "network", "symptom", "low", 15,
        "Broken pipe (wrote to a connection the peer already closed)",
        "The peer closed the connection, usually because it died first; find the first failing "
        "rank.",
        _ERRNO_ORIGIN + "; EPIPE (32)",
        ("[E ProcessGroupGloo.cpp:138] Gloo connectFullMesh failed with [../third_party/gloo/gloo/transport/tcp/pair.cc:598] Connection closed by peer / write: Broken pipe",
         "BrokenPipeError: [Errno 32] Broken pipe"),
    ),
    _sig(
        "errno.too_many_open_files",
        (r"(?i)Too many open files",),
        "other", "fault", "medium", 40,
        "Too many open files (file-descriptor limit reached)",
        "The process hit its open-files limit (many ranks × channels of sockets, DataLoader "
        "workers with file_descriptor sharing). Raise the limit or change the sharing strategy:\n"
        "$ ulimit -n   # raise to 1048576 in the job / container\n"
        "$ python -c \"import torch.multiprocessing as m; m.set_sharing_strategy('file_system')\"",
        _ERRNO_ORIGIN + "; EMFILE (24)",
        ("OSError: [Errno 24] Too many open files",
         "socket.cc:123 NCCL WARN Net : Socket creation failed : Too many open files"),
    ),
    _sig(
        "errno.cannot_allocate_memory",
        (r"(?i)Cannot allocate memory",),
        "other", "fault", "low", 20,
        "Cannot allocate memory (ENOMEM: host memory, locked-memory limit or map count)",
        "A host allocation failed: the node is out of RAM, the locked-memory limit is too low "
        "(RDMA registration), or vm.max_map_count is reached:\n"
        "$ free -g; ulimit -l   # should be unlimited for RDMA\n$ sysctl vm.max_map_count",
        _ERRNO_ORIGIN + "; ENOMEM (12)",
        ("OSError: [Errno 12] Cannot allocate memory",),
    ),
    _sig(
        "errno.resource_unavailable",
        (r"(?i)Resource temporarily unavailable",),
        "other", "fault", "low", 15,
        "Resource temporarily unavailable (EAGAIN: thread/process limit or non-blocking I/O)",
        "Often a thread could not be created (pids/threads limit of the container) or a "
        "non-blocking socket had no data; read the call it came from:\n"
        "$ ulimit -u; cat /sys/fs/cgroup/pids.max 2>/dev/null",
        _ERRNO_ORIGIN + "; EAGAIN (11)",
        ("RuntimeError: can't start new thread: Resource temporarily unavailable",),
    ),
    _sig(
        "errno.connection_aborted",
        (r"(?i)Software caused connection abort", r"(?i)Transport endpoint is not connected"),
        "network", "symptom", "low", 15,
        "Connection aborted / not connected (the connection was torn down under the caller)",
        "The local stack or the peer tore the connection down (peer death, a network reset, a "
        "timeout); find the first failing rank or network event.",
        _ERRNO_ORIGIN + "; ECONNABORTED (103), ENOTCONN (107)",
        ("ConnectionAbortedError: [Errno 103] Software caused connection abort",
         "recv failed: Transport endpoint is not connected"),
    ),
    _sig(
        "errno.host_is_down",
        (r"(?i)Host is down",),
        "network", "symptom", "medium", 25,
        "Host is down (EHOSTDOWN)",
        "The peer host does not answer on the network (powered off, rebooted, or its interface "
        "down):\n$ ping -c3 <peer>",
        _ERRNO_ORIGIN + "; EHOSTDOWN (112)",
        ("connect to 10.0.0.5 port 29500 failed: Host is down",),
    ),
)

# The dynamic loader (glibc dlerror(), as Python's ImportError / OSError and ctypes carry it, and
# ldd) naming a CUDA or NCCL library: the program was built for libraries this node lacks or has
# in another version. libcuda.so (the driver) and NCCL's optional plugins (libnccl-net.so, ...)
# are left out: a missing driver is a node without GPUs, a missing plugin is NCCL's normal path.
_CUDA_LIBS = r"lib(?:nccl|cudart|cublas|cublasLt|cudnn\w*|cufft|curand|cusparse|cusolver|nvrtc|nvJitLink|cupti)\.so"
_LOADER_FIX = (
    "The process was built against CUDA / NCCL libraries that this node does not have, or has in another "
    "version (a framework wheel for another CUDA, LD_LIBRARY_PATH pointing at a system NCCL or CUDA older "
    "than the one it was built with, or a container without the CUDA toolkit libraries). Compare what the "
    "program needs with what it loads, on every node:\n"
    "$ python -c 'import torch; print(torch.__version__, torch.version.cuda, torch.cuda.nccl.version())'\n"
    "$ echo $LD_LIBRARY_PATH; ldconfig -p | grep -E 'libnccl|libcudart'\n"
    "$ ldd $(python -c 'import torch, os; print(os.path.join(os.path.dirname(torch.__file__), \"lib\", "
    "\"libtorch_cuda.so\"))') | grep -E 'nccl|cuda|not found'"
)
LOADER: tuple[Signature, ...] = (
    _sig(
        "loader.cuda_library_missing",
        (_CUDA_LIBS + r"(?:\.\d+)*: cannot open shared object file", r"(?:^|\s)" + _CUDA_LIBS + r"(?:\.\d+)* => not found",
         r"ldd: \S*" + _CUDA_LIBS + r"(?:\.\d+)*: No such file or directory"),
        "version_mismatch", "fault", "medium", 65,
        "A CUDA or NCCL library the program needs is not found on this node",
        _LOADER_FIX,
        "glibc elf/dl-load.c `%s: cannot open shared object file: %s` (dlerror, in Python's ImportError/OSError "
        "and ctypes.CDLL); ldd `\t%s => not found` and `ldd: %s: No such file or directory`",
        ("ImportError: libcudart.so.11.0: cannot open shared object file: No such file or directory",
         "OSError: libnccl.so.2: cannot open shared object file: No such file or directory",
         "\tlibcublasLt.so.12 => not found"),
    ),
    _sig(
        "loader.cuda_library_mismatch",
        (r"undefined symbol: (?:nccl|cuda|cublas|cudnn|nvrtc|cusparse|cufft|curand)[A-Z]\w*",
         r"version `(?:libcudart\.so\.\d+|libnvrtc\.so\.\d+|libcublas(?:Lt)?\.so\.\d+|libcudnn\w*\.so\.\d+)' not found"),
        "version_mismatch", "fault", "medium", 65,
        "A CUDA or NCCL library of another version than the program was built for was loaded",
        _LOADER_FIX,
        "glibc elf/dl-lookup.c `%s: undefined symbol: %s`, elf/dl-version.c `%s: version `%s' not found (required "
        "by %s)` (dlerror, in Python's ImportError/OSError)",
        ("ImportError: /opt/conda/lib/python3.10/site-packages/torch/lib/libtorch_cuda.so: undefined symbol: ncclCommRegister",
         "OSError: /usr/local/lib/libcustom_ops.so: undefined symbol: cudaGraphInstantiateWithFlags, version libcudart.so.12",
         "ImportError: /usr/lib/x86_64-linux-gnu/libcudart.so.11.0: version `libcudart.so.12' not found (required by "
         "/opt/venv/lib/python3.11/site-packages/torch/lib/libtorch_cuda.so)"),
    ),
)

# Scary-looking lines of healthy nodes.
HARMLESS: tuple[Signature, ...] = (
    _sig(
        "libibverbs.driver_warning",
        (r"libibverbs: Warning: couldn't (?:load driver|open config directory)",),
        None, "harmless", "high", 10,
        "libibverbs could not load an unused provider driver (benign)",
        "libibverbs tries every provider listed in /etc/libibverbs.d; a missing one for hardware "
        "you do not have is harmless.",
        "rdma-core libibverbs/dynamic_driver.c / init.c warnings",
        ("libibverbs: Warning: couldn't load driver 'libmlx4-rdmav34.so': libmlx4-rdmav34.so: cannot open shared object file: No such file or directory",
         "libibverbs: Warning: couldn't open config directory '/etc/libibverbs.d'."),
    ),
    _sig(
        "kernel.module_taint",
        (r"module verification failed: signature and/or required key missing - tainting kernel",
         r"loading out-of-tree module taints kernel", r"module uses symbols from proprietary module \S+, inheriting taint",
         r"module license '\S+' taints kernel"),
        None, "harmless", "high", 10,
        "Kernel taint notice when loading the NVIDIA / out-of-tree modules (benign)",
        "Printed whenever the NVIDIA or another out-of-tree module loads; not an error.",
        "Linux kernel/module/main.c and signing.c taint messages",
        ("[    5.0] nvidia: loading out-of-tree module taints kernel.",
         "[    5.0] nvidia: module verification failed: signature and/or required key missing - tainting kernel",
         "[    5.2] nvidia_uvm: module uses symbols from proprietary module nvidia, inheriting taint."),
    ),
    _sig(
        "kernel.nvrm.persistence_mode_deprecated",
        (r"NVRM: Persistence mode is deprecated and will be removed in a future release",),
        None, "harmless", "high", 10,
        "NVRM: legacy persistence mode deprecation notice (benign)",
        "Informational; use nvidia-persistenced instead of the legacy persistence mode.",
        "NVIDIA kernel module notice (R3xx-R5xx)",
        ("[  20.1] NVRM: Persistence mode is deprecated and will be removed in a future release. Please use nvidia-persistenced instead.",),
    ),
)

SIGNATURES: tuple[Signature, ...] = OOM + SHM + PCIE + NVIDIA + NIC + CRASH + ERRNO + LOADER + HARMLESS

# Entries whose sample another entry reads (schema.py `alone_differs`): why the verdict on
# that sample is not this entry's cause.
SIGNATURES = alone_differs(SIGNATURES, {
    "os.disk_full": (
        "Generic ENOSPC text; its sample is torch writing a shared-memory file (</torch_...>), which torch.shm.no_space reads as /dev/shm full."
    ),
    "errno.connection_reset": (
        "Generic errno text; its sample is c10d fetching the NCCL unique id, which torch.pgnccl.uniqueid_store_error reads (rank 0 died: its crash)."
    ),
    "errno.no_route_to_host": (
        "Generic errno text; its sample is c10d's TCPStore client, which torch.store.connect_unreachable reads as a store the ranks cannot reach (rendezvous_hang)."
    ),
    "errno.connection_timed_out": (
        "Generic errno text; its sample is c10d's TCPStore client timing out, which torch.store.client_connect_timeout reads (rendezvous_hang)."
    ),
       "errno.cannot_allocate_memory": (
        "Generic errno text; its sample is Python's OSError for ENOMEM, which torch.exc.host_memory_error reads as host memory exhausted (oom)."
    ),
})
