"""Signatures of NVIDIA Xid reports: one entry per Xid code (or per family of codes that mean
the same thing for a training job), drawn from `src/common/sdk/nvidia/inc/nverror.h` of
NVIDIA/open-gpu-kernel-modules 595.45.04 (names), `src/nvidia/src/kernel/gpu/rc/kernel_rc.c`
(line format), NVIDIA's Xid catalog and docs/log-formats.md §3 (meanings). See schema.py for the fields.

The kernel line is `NVRM: Xid (PCI:%04x:%02x:%02x[ GPU-I:%02u[ GPU-CI:%02u]]): %d, [pid=%s,
name=%s, ]<msg>` (pid/name omitted when unknown from R570; very old drivers print no `PCI:`);
the Linux tracepoint prints `Xid (PCI:%s): %u, %s`. Users paste it with the PCI id masked
(`(PCI:...)`, `(PCI:xxxx:xx:xx)`), so the id is matched as anything up to `)`. Tools re-report
an Xid as `Xid 79`, `XID 79`, `Xid=79` (k8s device plugin `XidCriticalError: Xid=79 on
Device=...`, DCGM `Detected XID 79 for GPU 0`): matched too.

Rows are data; `_xid` turns one row into a `Signature`. Application-class Xids (13, 31, 43, 45,
69, CE errors) are `rank_crash` (a process's kernel faulted and its channel was torn down), not
hardware, unless they repeat on one GPU across jobs.
"""
from __future__ import annotations

import re

from .schema import Signature, alone_differs

# Named groups for the finding: bus id `domain:bus:device` (None when masked), Xid number,
# pid where printed (None for `pid='<unknown>'`).
EXTRACT = (
    r"(?:Xid \((?:PCI:)?(?P<bus_id>[0-9A-Fa-f]{4}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2})?[^)]*\):"
    r"|(?i:\bxid)[ =:]+)\s*(?P<xid>\d+)(?:, pid=(?P<pid>\d+))?"
)

_ORIGIN = ("Xid {codes} ({names}; open-gpu-kernel-modules src/common/sdk/nvidia/inc/nverror.h, "
           "R515-595.45.04; line format src/nvidia/src/kernel/gpu/rc/kernel_rc.c)")

_CHECK = (
    "$ dmesg -T | grep -E 'NVRM: (Xid|GPU)'\n"
    "$ nvidia-smi -q -d ECC,ROW_REMAPPER,PAGE_RETIREMENT -i {bus_id}\n"
)

FIX_DRAIN = (
    "Hardware error on GPU {bus_id}. Drain the node from the scheduler, reset the GPU (or reboot) "
    "and run a diagnostic before returning it; RMA if it recurs:\n" + _CHECK
    + "$ nvidia-smi -r -i {bus_id}   # no process may be using it\n"
    "$ dcgmi diag -r 3"
)

FIX_APP = (
    "An application-class Xid: a process's GPU kernel faulted (bad address, illegal "
    "instruction, out-of-range access) and the driver tore down its channel (pid {pid}). It is "
    "the application unless the same GPU shows it across different jobs or with ECC/NVLink "
    "Xids. Find the process and reproduce synchronously:\n"
    "$ dmesg -T | grep -E 'NVRM: Xid'   # the pid/name, and any Xid 48/63/64/74/79/94/95 nearby\n"
    "$ CUDA_LAUNCH_BLOCKING=1 compute-sanitizer --tool memcheck python train.py"
)

FIX_NVLINK = (
    "An NVLink / fabric error on GPU {bus_id}. Drain the node; check link state and error "
    "counters, the NVSwitch fabric and Fabric Manager; reset the GPUs or reboot; RMA the "
    "board or the switch tray if it recurs:\n"
    "$ nvidia-smi nvlink -s; nvidia-smi nvlink -e\n"
    "$ dmesg -T | grep -E 'Xid|SXid'\n"
    "$ systemctl status nvidia-fabricmanager   # NVSwitch systems\n"
    "$ dcgmi diag -r 3"
)

FIX_FIRMWARE = (
    "The GPU's firmware/microcontroller (GSP, PMU, SEC2) failed or timed out on GPU {bus_id}. "
    "The GPU usually needs a reset or a reboot; if it recurs, update the driver (firmware bugs) "
    "and then suspect the hardware:\n" + _CHECK
    + "$ nvidia-smi -r -i {bus_id}\n"
    "$ nvidia-bug-report.sh   # for NVIDIA support"
)

FIX_MEDIA = (
    "An error in a video/JPEG/optical-flow/display engine; not used by NCCL or training. "
    "Irrelevant to a training failure unless it repeats with other Xids."
)


_CODES: dict[int, str] = {}  # Xid code -> id of the entry that reads it (filled by _xid)


def _xid(
    codes: tuple[int, ...],
    slug: str,
    names: str,
    title: str,
    cause: str | None,
    role: str,
    confidence: str,
    priority: int,
    fix: str,
    messages: tuple[str, ...],
    *,
    extra_patterns: tuple[str, ...] = (),
    extra_samples: tuple[str, ...] = (),
    extract: str = EXTRACT,
) -> Signature:
    """One Xid code or family: the kernel line with the PCI id in any form, and the re-reports.

    `messages` are typical texts after the code, one per code (or one for all), for samples.
    """
    alt = "|".join(str(c) for c in codes)
    num = f"(?:{alt})" if len(codes) > 1 else alt
    patterns = (rf"Xid \([^)]*\): {num}(?:\D|$)", rf"(?i)xid[ =:]+{num}(?:\D|$)") + extra_patterns
    samples: list[str] = []
    pcis = ("PCI:0000:3b:00", "PCI:...", "PCI:xxxx:xx:xx", "PCI:0000:b3:00 GPU-I:05")
    for i, code in enumerate(codes):
        msg = messages[i % len(messages)]
        pci = pcis[i % len(pcis)]
        samples.append(f"[ 8123.456789] NVRM: Xid ({pci}): {code}, pid=24141, name=python, {msg}")
    first = codes[0]
    samples.append(f"Dec  1 14:22:01 node-b kernel: NVRM: Xid (PCI:0000:1a:00): {first}, {messages[0]}")
    samples.append(f"kernel: [  77.1] NVRM: Xid (PCI:...): {first}, pid='<unknown>', name=<unknown>, {messages[0]}")
    samples.append(f"I1201 14:22:02.000000 1 health.go:159] XidCriticalError: Xid={first} on "
                   "Device=GPU-0b11d014-1685-04bd-26ed-5fc0bc1c44ae; marking device as unhealthy.")
    samples.extend(extra_samples)
    codes_text = ", ".join(str(c) for c in codes)
    for c in codes:
        _CODES.setdefault(c, f"xid.{slug}")
    return Signature(
        id=f"xid.{slug}",
        patterns=patterns,
        cause=cause,
        role=role,
        confidence=confidence,
        title=title,
        fix=fix,
        origin=_ORIGIN.format(codes=codes_text, names=names),
        samples=tuple(samples),
        extract=extract,
        priority=priority,
    )


SIGNATURES: tuple[Signature, ...] = (
    _xid((8,), "fifo_idle_timeout", "GPU stopped processing (no nverror.h name)",
         "Xid 8: GPU stopped processing (channel idle timeout)",
         "rank_crash", "fault", "low", 45,
         "The GPU stopped processing a channel (a kernel that never finishes, or a driver "
         "problem). Restart the application; if it recurs on one GPU, reset it.\n" + _CHECK,
         ("Ch 00000010, intr 10000000",)),
    _xid((13,), "gr_exception", "ROBUST_CHANNEL_GR_EXCEPTION",
         "Xid 13: graphics/compute engine exception (SM exception in a kernel)",
         "rank_crash", "fault", "medium", 60, FIX_APP,
         ("Graphics SM Warp Exception on (GPC 1, TPC 0, SM 0): Out Of Range Address",
          "Graphics Exception: ESR 0x504648=0x102000e 0x504650=0x0 0x504644=0xd3eff2 0x50464c=0x17f"),
         extra_samples=("[ 8123.4] NVRM: Xid (PCI:0000:3b:00): 13, pid=24141, name=python, Graphics Exception: "
                        "ESR 0x504648=0x102000e 0x504650=0x0",)),
    _xid((14,), "fake_error", "ROBUST_CHANNEL_FAKE_ERROR",
         "Xid 14: injected (fake) error for testing", None, "harmless", "low", 15,
         "An error injected on purpose (driver testing). Harmless.", ("Fake error",)),
    _xid((16, 19), "display", "ROBUST_CHANNEL_VBLANK_CALLBACK_TIMEOUT, ROBUST_CHANNEL_DISP_MISSED_NOTIFIER",
         "Xid 16/19: display engine timeout / missed notifier", None, "harmless", "low", 15,
         FIX_MEDIA, ("Head 00000000 Count 0001a2c3",)),
    _xid((20, 21, 22, 27, 28, 29, 33, 34, 35, 36), "legacy_engines",
         "MPEG/ME/VP/VP2/BSP/SEC/MSVLD/MSPDEC/MSPPP errors",
         "Xid 20-36: legacy video/security engine errors", "other", "fault", "low", 25,
         FIX_MEDIA, ("engine error",)),
    _xid((23,), "rc_logging_enabled", "ROBUST_CHANNEL_RC_LOGGING_ENABLED",
         "Xid 23: robust-channel logging enabled", None, "context", "low", 10,
         "Informational: the driver enabled robust-channel error logging.", ("RC logging enabled",)),
    _xid((31,), "mmu_fault", "ROBUST_CHANNEL_FIFO_ERROR_MMU_ERR_FLT",
         "Xid 31: GPU MMU fault (a kernel accessed an invalid address)",
         "rank_crash", "fault", "medium", 65,
         "The GPU's MMU faulted on an access by process {pid}: almost always an illegal memory "
         "access by the application (it pairs with 'an illegal memory access was encountered' on "
         "that rank); driver/hardware only if it repeats on one GPU across jobs. " + FIX_APP,
         ("Ch 00000008, intr 00000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_0 faulted @ "
          "0x7f2a_c0000000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ",),
         extra_samples=("NVRM: Xid (0000:01:00): 31, Ch 00000010, engmask 00000101, intr 10000000",)),
    _xid((32,), "pbdma_error", "ROBUST_CHANNEL_PBDMA_ERROR",
         "Xid 32: invalid or corrupted push buffer stream",
         "hardware_fault", "fault", "medium", 65,
         "The GPU's push-buffer DMA read a corrupted command stream: a driver bug, or data "
         "corrupted on the PCIe bus / in system memory. Check the PCIe link and host memory "
         "errors; reset the GPU:\n"
         "$ dmesg -T | grep -E 'AER|PCIe Bus Error|EDAC|mce'\n" + _CHECK,
         ("Ch 00000030, intr 00000000. PBDMA Error: PBDMA_INTR_0_GPFIFO",)),
    _xid((39, 40, 41, 70, 71, 72, 75, 76, 77, 85, 126, 127, 128, 129, 130, 131, 132, 133, 134, 135),
         "copy_engine", "ROBUST_CHANNEL_CE0..CE19_ERROR",
         "Xid 39-41/70-77/85/126-135: copy engine exception",
         "rank_crash", "fault", "low", 45,
         "A copy engine (memcpy / NCCL copy-engine transfers) hit an exception, usually an "
         "invalid address in a copy issued by the application (often with Xid 31 at the same "
         "time). Hardware only if it repeats on one GPU.\n" + FIX_APP,
         ("CE0 Error",)),
    _xid((42, 47, 65, 68, 73, 82, 83, 84, 86, 88, 89, 96, 97, 98, 99, 100, 101, 102, 103, 104,
          105, 138, 139, 142),
         "media_engines", "VIC/NVENC/NVDEC/NVJPG/OFA/DLA errors",
         "Xid 42-142 (media engines): video/JPEG/optical-flow/DLA engine exception",
         "other", "fault", "low", 20, FIX_MEDIA, ("NVDEC0 Exception: 0x00000001",)),
    _xid((43,), "resetchannel_verif", "ROBUST_CHANNEL_RESETCHANNEL_VERIF_ERROR",
         "Xid 43: GPU stopped processing; the channel of a faulting application was reset",
         "rank_crash", "symptom", "medium", 50,
         "The driver reset the channel of process {pid} after its kernel faulted (a user "
         "application error; it usually follows Xid 13 or 31). The process's own error is the "
         "story. " + FIX_APP,
         ("pid=24141, name=python, Ch 00000010",)),
    _xid((44,), "gr_fault_ctxsw", "ROBUST_CHANNEL_GR_FAULT_DURING_CTXSW",
         "Xid 44: graphics engine fault during context switch",
         "hardware_fault", "fault", "low", 55,
         "A fault during a context switch: a driver or hardware problem. Reset the GPU; if it "
         "recurs, update the driver, then drain and test the GPU.\n" + _CHECK,
         ("Ch 00000008, intr 00000000",)),
    _xid((45,), "preemptive_removal", "ROBUST_CHANNEL_PREEMPTIVE_REMOVAL",
         "Xid 45: preemptive cleanup of a process's channels (after earlier errors or a kill)",
         "rank_crash", "symptom", "low", 30,
         "The driver cleaned up the GPU channels of process {pid} because the process was "
         "killed (Ctrl-C, SIGKILL, OOM killer, the launcher tearing ranks down) or because of an "
         "earlier Xid ('caused by previous Xid N'). Secondary: look for that earlier Xid or why "
         "the process was killed:\n"
         "$ dmesg -T | grep -E 'NVRM: Xid|Killed process|oom-kill'",
         ("pid=24141, name=python, Ch 00000028",
          "pid=24141, name=python, Ch 00000028 caused by previous Xid 79"),
         extra_samples=("NVRM: Xid (PCI:0000:3b:00): 45, pid=24141, name=python, Ch 00000028 caused by previous Xid 79",)),
    _xid((48,), "ecc_dbe", "ROBUST_CHANNEL_GPU_ECC_DBE",
         "Xid 48: double-bit (uncorrectable) ECC error in GPU memory",
         "hardware_fault", "fault", "high", 90, FIX_DRAIN,
         ("An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at "
          "partition 6, subpartition 0.",)),
    _xid((58,), "fb_memory_error", "FB_MEMORY_ERROR",
         "Xid 58: unstable video memory interface (framebuffer memory error)",
         "hardware_fault", "fault", "medium", 75, FIX_DRAIN, ("FB memory error",)),
    _xid((59, 60, 169), "pmu_sec2_error", "PMU_ERROR, ROBUST_CHANNEL_SEC2_ERROR, SEC2_HALT_ERROR",
         "Xid 59/60/169: PMU or SEC2 microcontroller error", "hardware_fault", "fault", "medium", 60,
         FIX_FIRMWARE, ("PMU error", "SEC2 error", "SEC2 halt")),
    _xid((61,), "pmu_breakpoint", "PMU_BREAKPOINT",
         "Xid 61: internal micro-controller breakpoint/warning", "hardware_fault", "fault", "low", 55,
         FIX_FIRMWARE, ("0cf8(1a04): 00000000 00000000",)),
    _xid((62,), "pmu_halt", "PMU_HALT_ERROR",
         "Xid 62: internal micro-controller halt", "hardware_fault", "fault", "medium", 70,
         FIX_FIRMWARE, ("0cf8(1a04): 00000000 00000000",)),
    _xid((63,), "page_retirement_event", "INFOROM_PAGE_RETIREMENT_EVENT / INFOROM_DRAM_RETIREMENT_EVENT",
         "Xid 63: ECC page retired / row marked for remapping (reset needed to activate)",
         "hardware_fault", "fault", "medium", 70,
         "GPU memory had an ECC error and the driver recorded a page retirement (pre-A100) or "
         "marked a row for remapping (A100+). The job on it may have died; the remap only takes "
         "effect after a GPU reset. Reset the GPU when idle; drain it if remaps keep coming or "
         "the remapper reports a failure (Xid 64):\n"
         "$ nvidia-smi -q -d ROW_REMAPPER,PAGE_RETIREMENT -i {bus_id}\n"
         "$ nvidia-smi -r -i {bus_id}",
         ("Row Remapper: New row marked for remapping, reset gpu to activate.",
          "ECC page retirement or row remapping recording event has occurred.")),
    _xid((64,), "page_retirement_failure", "INFOROM_PAGE_RETIREMENT_FAILURE / INFOROM_DRAM_RETIREMENT_FAILURE",
         "Xid 64: ECC page retirement / row remapping failed", "hardware_fault", "fault", "high", 88,
         "The GPU could not retire a bad memory page / remap a row (no spare rows left or an "
         "InfoROM failure): its memory can no longer be repaired. Drain the node and RMA the GPU.\n"
         + FIX_DRAIN,
         ("Row Remapper: Failed to remap a row, GPU needs to be RMAed.",
          "ECC page retirement or row remapper recording failure has occurred.")),
    _xid((69,), "gr_class_error", "ROBUST_CHANNEL_GR_CLASS_ERROR",
         "Xid 69: graphics engine class error", "rank_crash", "fault", "low", 45,
         "A graphics-engine class error (illegal method from the application or a driver bug). "
         "Restart the application; update the driver if it recurs.\n" + FIX_APP,
         ("Class Error: ChId 0010, Class 0000c7c0, Offset 00000000, Data 00000000, ErrorCode 00000004",)),
    _xid((74,), "nvlink_error", "NVLINK_ERROR",
         "Xid 74: NVLink error (fatal link error or link training failure)",
         "hardware_fault", "fault", "high", 90, FIX_NVLINK,
         ("NVLink: fatal error detected on link 3(0x10000, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0)",
          "NVLink: failed to train link 2 to remote PCI:0000:ab:00")),
    _xid((78,), "vgpu_start_error", "VGPU_START_ERROR",
         "Xid 78: vGPU start error", "other", "fault", "medium", 55,
         "The virtual GPU failed to start (vGPU manager / license / configuration). Check the "
         "host's vGPU manager log:\n$ journalctl -u nvidia-vgpu-mgr -n 100",
         ("vGPU start failed",)),
    _xid((79,), "fallen_off_bus", "ROBUST_CHANNEL_GPU_HAS_FALLEN_OFF_THE_BUS",
         "Xid 79: GPU has fallen off the bus", "hardware_fault", "fault", "high", 95,
         "GPU {bus_id} stopped answering on PCIe (power, thermal, PCIe link, firmware or a dying "
         "GPU); every process on it is gone and NVML reports 'GPU is lost'. Drain the node; it "
         "needs a reboot (often a power cycle). Check PCIe AER errors, power and temperature "
         "history; RMA if it recurs:\n"
         "$ dmesg -T | grep -E 'Xid|fallen off|AER|PCIe Bus Error'\n"
         "$ ipmitool sel list | tail -20\n"
         "$ nvidia-smi -q -d TEMPERATURE,POWER",
         ("GPU has fallen off the bus.",),
         extra_samples=("NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus.",
                        "[Mon Dec  1 14:22:01 2026] NVRM: Xid (PCI:xxxx:xx:xx): 79, GPU has fallen off the bus.")),
    _xid((80,), "pushbuffer_crc", "PBDMA_PUSHBUFFER_CRC_MISMATCH",
         "Xid 80: push buffer CRC mismatch (corrupted data on the way to the GPU)",
         "hardware_fault", "fault", "medium", 70,
         "Commands reached the GPU corrupted: PCIe link or host memory problem, or the GPU. Check "
         "AER/EDAC errors and reseat/replace:\n"
         "$ dmesg -T | grep -E 'AER|PCIe Bus Error|EDAC'\n" + _CHECK,
         ("PBDMA pushbuffer CRC mismatch",)),
    _xid((81,), "vga_subsystem", "ROBUST_CHANNEL_VGA_SUBSYSTEM_ERROR",
         "Xid 81: VGA subsystem error", "hardware_fault", "fault", "low", 50, FIX_DRAIN,
         ("VGA subsystem error",)),
    _xid((87,), "telemetry", "NVTELEMETRY_DRIVER_REPORT",
         "Xid 87: driver telemetry report", None, "context", "low", 10,
         "Informational telemetry from the driver.", ("telemetry report",)),
    _xid((90,), "ltc_error", "LTC_ERROR",
         "Xid 90: L2 cache (LTC) error", "hardware_fault", "fault", "medium", 75, FIX_DRAIN,
         ("LTC error",)),
    _xid((92,), "excessive_sbe", "EXCESSIVE_SBE_INTERRUPTS",
         "Xid 92: high single-bit ECC error rate", "hardware_fault", "fault", "medium", 60,
         "Correctable (single-bit) ECC errors are arriving at a high rate on GPU {bus_id}: the "
         "memory is degrading. Not fatal yet; watch it and plan a drain/RMA:\n"
         "$ nvidia-smi -q -d ECC -i {bus_id}",
         ("High single-bit ECC error rate detected",)),
    _xid((93,), "inforom_erase_limit", "INFOROM_ERASE_LIMIT_EXCEEDED",
         "Xid 93: InfoROM erase limit exceeded", "hardware_fault", "fault", "low", 45,
         "The GPU's InfoROM has been rewritten too often; records may be lost. Plan an RMA.\n"
         "$ nvidia-smi -q | grep -i -A5 inforom",
         ("InfoROM erase limit exceeded",)),
    _xid((94,), "contained_error", "ROBUST_CHANNEL_CONTAINED_ERROR",
         "Xid 94: contained uncorrectable memory error (only the affected process was killed)",
         "hardware_fault", "fault", "medium", 82,
         "An uncorrectable memory error on GPU {bus_id} was contained: the process using that "
         "memory (pid {pid}) was killed, the GPU keeps working. Restart the job; reset the GPU "
         "when idle so the row remap takes effect; drain it if it repeats:\n"
         "$ nvidia-smi -q -d ROW_REMAPPER,ECC -i {bus_id}\n"
         "$ nvidia-smi -r -i {bus_id}",
         ("Contained: CE User Channel (0x9). RST: No, D-RST: No",
          "Contained: SM (0x1). RST: No, D-RST: No"),
         extra_samples=("NVRM: Xid (PCI:0000:01:00 GPU-I:05): 94, pid=7194, Contained: CE User Channel (0x9). RST: No, D-RST: No",)),
    _xid((95,), "uncontained_error", "ROBUST_CHANNEL_UNCONTAINED_ERROR",
         "Xid 95: uncontained uncorrectable memory error (every process on the GPU affected)",
         "hardware_fault", "fault", "high", 92,
         "An uncorrectable memory error on GPU {bus_id} could not be contained: every process "
         "on the GPU is affected and the GPU must be reset. " + FIX_DRAIN,
         ("Uncontained: LTC TAG (0x2, 0x1). RST: Yes, D-RST: No",)),
    _xid((108,), "nvlink_remote_translation", "NVLINK_REMOTE_TRANSLATION_ERROR",
         "Xid 108: NVLink remote translation error", "hardware_fault", "fault", "low", 55,
         "An access over NVLink to a peer GPU could not be translated (an invalid peer address "
         "from the application, or a fabric problem). Check with the NVLink Xids nearby.\n"
         + FIX_NVLINK,
         ("NVLink remote translation error",)),
    _xid((109,), "ctxsw_timeout", "context switch timeout (NVIDIA Xid catalog; not in nverror.h 595)",
         "Xid 109: context switch timeout", "hardware_fault", "fault", "low", 55,
         "A context switch timed out (a hung kernel, a driver problem or the GPU). Restart the "
         "application and reset the GPU; drain it if it recurs.\n" + _CHECK,
         ("CTX SWITCH TIMEOUT, Info 0x3c046",)),
    _xid((110,), "sec_fault", "SEC_FAULT_ERROR",
         "Xid 110: security fault error", "hardware_fault", "fault", "medium", 70, FIX_DRAIN,
         ("Security fault error",)),
    _xid((119,), "gsp_rpc_timeout", "GSP_RPC_TIMEOUT",
         "Xid 119: GSP firmware RPC timeout", "hardware_fault", "fault", "medium", 80,
         "The GPU System Processor (GSP) firmware stopped answering the driver on GPU {bus_id}; "
         "the GPU is unusable until reset/reboot. Often a driver/firmware bug (try disabling GSP "
         "or updating the driver), hardware if it recurs after that.\n" + FIX_FIRMWARE,
         ("Timeout after 6s of waiting for RPC response from GPU0 GSP! Expected function 76 "
          "(GSP_RM_CONTROL) (0x20801348 0x4).",)),
    _xid((120,), "gsp_error", "GSP_ERROR",
         "Xid 120: GSP firmware error", "hardware_fault", "fault", "medium", 78, FIX_FIRMWARE,
         ("GSP task timeout @ pc:0x1b1f3f4, task: 1",)),
    _xid((121,), "c2c_error", "C2C_ERROR",
         "Xid 121: chip-to-chip (C2C, Grace-Hopper/Blackwell) link error",
         "hardware_fault", "fault", "high", 80, FIX_DRAIN, ("C2C Link 3 Error",)),
    _xid((122, 123, 124), "spi_pmu_rpc", "SPI_PMU_RPC_READ_FAIL/WRITE_FAIL/ERASE_FAIL",
         "Xid 122-124: SPI flash access through PMU failed", "hardware_fault", "fault", "medium", 60,
         FIX_FIRMWARE, ("SPI read failed", "SPI write failed", "SPI erase failed")),
    _xid((125,), "inforom_fs_error", "INFOROM_FS_ERROR",
         "Xid 125: InfoROM file system error", "hardware_fault", "fault", "low", 50,
         "The GPU's InfoROM file system reported an error. Plan an RMA if it recurs.\n"
         "$ nvidia-smi -q | grep -i -A5 inforom", ("InfoROM FS error",)),
    _xid((136,), "ali_training_fail", "ALI_TRAINING_FAIL",
         "Xid 136: NVLink ALI link training failure", "hardware_fault", "fault", "high", 85,
         FIX_NVLINK, ("Link training failed on link 5",)),
    _xid((137,), "nvlink_priv_err", "NVLINK_PRIV_ERR",
         "Xid 137: NVLink FLA privilege error", "rank_crash", "fault", "low", 50,
         "An access over NVLink violated fabric-address privileges (an application/driver "
         "error more often than hardware). Restart the job; if it recurs on one GPU, follow the "
         "NVLink checks.\n" + FIX_NVLINK, ("NVLink FLA privilege error",)),
    _xid((140,), "ecc_escape", "UNRECOVERABLE_ECC_ERROR_ESCAPE",
         "Xid 140: unrecovered ECC error escaped containment", "hardware_fault", "fault", "high", 92,
         FIX_DRAIN, ("An unrecoverable ECC error escaped containment",)),
    _xid((141,), "fast_path_error", "ROBUST_CHANNEL_FAST_PATH_ERROR",
         "Xid 141: fast path error", "other", "fault", "low", 40,
         "A fast-path channel error; restart the application, reset the GPU if it recurs.\n" + _CHECK,
         ("fast path error",)),
    _xid((143,), "gpu_init_error", "GPU_INIT_ERROR",
         "Xid 143: GPU initialization failure", "hardware_fault", "fault", "medium", 80,
         "The GPU failed to initialise (firmware or hardware). Reboot; if it persists, update the "
         "driver/firmware and RMA.\n" + FIX_FIRMWARE, ("GPU initialization failure",)),
    _xid((144,), "nvlink_saw", "NVLINK_SAW_ERROR", "Xid 144: NVLink SAW error",
         "hardware_fault", "fault", "high", 85, FIX_NVLINK, ("NVLINK: SAW MVB Non-Fatal Error",)),
    _xid((145,), "nvlink_rlw", "NVLINK_RLW_ERROR", "Xid 145: NVLink RLW error",
         "hardware_fault", "fault", "high", 85, FIX_NVLINK, ("NVLINK: RLW Error",)),
    _xid((146,), "nvlink_tlw", "NVLINK_TLW_ERROR", "Xid 146: NVLink TLW error",
         "hardware_fault", "fault", "high", 85, FIX_NVLINK, ("NVLINK: TLW Error",)),
    _xid((147,), "nvlink_trex", "NVLINK_TREX_ERROR", "Xid 147: NVLink TREX error",
         "hardware_fault", "fault", "high", 85, FIX_NVLINK, ("NVLINK: TREX Error",)),
    _xid((148,), "nvlink_nvlpw_ctrl", "NVLINK_NVLPW_CTRL_ERROR", "Xid 148: NVLink NVLPW control error",
         "hardware_fault", "fault", "high", 85, FIX_NVLINK, ("NVLINK: NVLPW_CTRL Error",)),
    _xid((149,), "nvlink_netir", "NVLINK_NETIR_ERROR", "Xid 149: NVLink NETIR error",
         "hardware_fault", "fault", "high", 85, FIX_NVLINK, ("NVLINK: NETIR Error",)),
    _xid((150,), "nvlink_mse", "NVLINK_MSE_ERROR", "Xid 150: NVLink MSE error",
         "hardware_fault", "fault", "high", 85, FIX_NVLINK, ("NVLINK: MSE Error",)),
    _xid((151,), "key_rotation", "ROBUST_CHANNEL_KEY_ROTATION_ERROR",
         "Xid 151: confidential-computing key rotation error", "other", "fault", "low", 45,
         "A key rotation failed on a confidential-computing GPU; restart the job.\n"
         "$ nvidia-smi conf-compute -q", ("Key rotation error",)),
    _xid((154,), "recovery_action_changed", "GPU_RECOVERY_ACTION_CHANGED",
         "Xid 154: the driver changed the GPU's recommended recovery action",
         "hardware_fault", "fault", "medium", 75,
         "The driver's own verdict for GPU {bus_id} changed to '{action}' (None / GPU Reset "
         "Required / Node Reboot Required / Drain P2P / Drain and Reset). Do what it says; the "
         "Xid just before it is the cause:\n"
         "$ dmesg -T | grep -E 'NVRM: Xid'\n"
         "$ nvidia-smi -q | grep -i -A2 'recovery action'",
         ("GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)",
          "GPU recovery action changed from 0x0 (None) to 0x2 (Node Reboot Required)"),
         extra_patterns=(r"GPU recovery action changed from 0x[0-9a-fA-F]+ \(",),
         extract=EXTRACT + r"(?:.*? to 0x[0-9a-fA-F]+ \((?P<action>[^)]*)\))?"),
    _xid((155,), "nvlink_sw_defined", "NVLINK_SW_DEFINED_ERROR",
         "Xid 155: NVLink software-defined error", "hardware_fault", "fault", "medium", 75,
         FIX_NVLINK, ("NVLink SW defined error",)),
    _xid((156, 160), "retirement_event", "RESOURCE_RETIREMENT_EVENT, CHANNEL_RETIREMENT_EVENT",
         "Xid 156/160: GPU resource or channel retired after errors", "hardware_fault", "fault",
         "medium", 70,
         "The GPU retired a resource (memory, channel) after errors; like Xid 63 it is recorded "
         "and may need a reset to take effect. Watch for repeats; drain if they continue.\n" + _CHECK,
         ("Resource retirement event", "Channel retirement event")),
    _xid((157, 161), "retirement_failure", "RESOURCE_RETIREMENT_FAILURE, CHANNEL_RETIREMENT_FAILURE",
         "Xid 157/161: GPU resource or channel retirement failed", "hardware_fault", "fault", "high",
         85, FIX_DRAIN, ("Resource retirement failure", "Channel retirement failure")),
    _xid((158,), "gpu_fatal_timeout", "GPU_FATAL_TIMEOUT",
         "Xid 158: GPU fatal timeout", "hardware_fault", "fault", "high", 85, FIX_DRAIN,
         ("GPU fatal timeout",)),
    _xid((159,), "chi_non_data", "ROBUST_CHANNEL_CHI_NON_DATA_ERROR",
         "Xid 159: CHI non-data error (coherent interconnect)", "hardware_fault", "fault", "medium",
         70, FIX_DRAIN, ("CHI non-data error",)),
    _xid((162, 163, 164, 165), "isink", "ISINK_REENGAGED/DISENGAGED/LOW_LIFETIME/ZERO_LIFETIME",
         "Xid 162-165: current-sink (ISINK) state / lifetime event", "hardware_fault", "fault", "low",
         40,
         "Power-delivery current-sink events on the board; low/zero lifetime means the part is "
         "wearing out. Plan maintenance with the vendor.\n$ nvidia-smi -q -d POWER",
         ("ISINK re-engaged", "ISINK disengaged", "ISINK low lifetime", "ISINK zero lifetime")),
    _xid((166, 170), "nvlink_secure", "NVLINK_SECURE_NVLE_ERROR, NVLINK_SECURE_ERROR",
         "Xid 166/170: NVLink encryption (secure NVLink) error", "hardware_fault", "fault", "medium",
         70, FIX_NVLINK, ("NVLE error", "NVLink secure error")),
    _xid((167,), "pcie_fatal_timeout", "PCIE_FATAL_TIMEOUT",
         "Xid 167: PCIe fatal timeout", "hardware_fault", "fault", "high", 88,
         "A PCIe transaction to GPU {bus_id} timed out fatally (link, riser, switch or GPU). "
         "Drain and check the PCIe path:\n"
         "$ dmesg -T | grep -E 'AER|PCIe Bus Error'\n"
         "$ lspci -vvv -s {bus_id} | grep -E 'LnkSta|UESta'\n" + FIX_DRAIN,
         ("PCIe fatal timeout",)),
    _xid((168,), "reduced_memory_capacity", "REDUCED_GPU_MEMORY_CAPACITY",
         "Xid 168: GPU memory capacity reduced (memory taken offline)", "hardware_fault", "fault",
         "medium", 70,
         "Part of GPU {bus_id}'s memory was taken offline after errors; jobs sized for the full "
         "memory may now run out. Drain and RMA.\n" + _CHECK,
         ("Reduced GPU memory capacity",)),
    _xid((171,), "uncorrectable_dram", "UNCORRECTABLE_DRAM_ERROR",
         "Xid 171: uncorrectable DRAM error", "hardware_fault", "fault", "high", 90, FIX_DRAIN,
         ("Uncorrectable DRAM error",)),
    _xid((172,), "uncorrectable_sram", "UNCORRECTABLE_SRAM_ERROR",
         "Xid 172: uncorrectable SRAM error", "hardware_fault", "fault", "high", 90, FIX_DRAIN,
         ("GSP-RISCV, Uncorrectable SRAM error",)),
    _xid((173,), "c2c_fatal_link", "C2C_FATAL_LINK_FAILURE",
         "Xid 173: chip-to-chip (C2C) fatal link failure", "hardware_fault", "fault", "high", 90,
         FIX_DRAIN, ("C2C fatal link failure",)),
    _xid((174,), "kill_process_silent", "ROBUST_CHANNEL_RESETCHANNEL_KILL_PROCESS_SILENT",
         "Xid 174: process's channel reset and process killed silently", "rank_crash", "symptom",
         "low", 35,
         "The driver killed process {pid}'s GPU work as part of recovery from another error; look "
         "for the Xid before it.\n$ dmesg -T | grep -E 'NVRM: Xid'",
         ("Channel reset, process killed",)),
    _xid((175,), "memory_subsystem", "MEMORY_SUBSYSTEM_ERROR",
         "Xid 175: GPU memory subsystem error", "hardware_fault", "fault", "high", 88, FIX_DRAIN,
         ("Memory subsystem error",)),
    _xid((176,), "pcie_correctable_fault", "PCIE_CORRECTABLE_ERROR_FAULT",
         "Xid 176: PCIe correctable errors beyond threshold", "hardware_fault", "fault", "medium", 60,
         "Correctable PCIe errors on GPU {bus_id}'s link crossed the fault threshold: a marginal "
         "link (riser, cable, slot). Check the AER counters and reseat:\n"
         "$ dmesg -T | grep -E 'AER|PCIe Bus Error'\n"
         "$ lspci -vvv -s {bus_id} | grep -E 'LnkSta|CESta'",
         ("PCIe correctable error fault",)),
    Signature(
        id="xid.any",
        patterns=(r"NVRM: Xid \([^)]*\): \d+", r"Xid \(PCI:[^)]*\): \d+,"),
        cause="hardware_fault",
        role="fault",
        confidence="low",
        title="NVIDIA Xid (code not in the catalog)",
        fix=(
            "The driver reported Xid {xid} on GPU {bus_id}. Look the code up in NVIDIA's Xid "
            "catalog and read the lines around it:\n" + _CHECK
        ),
        origin="NVRM Xid line, open-gpu-kernel-modules src/nvidia/src/kernel/gpu/rc/kernel_rc.c "
               "(portDbgPrintf 'NVRM: Xid (PCI:%04x:%02x:%02x): %d, ...'); tracepoint "
               "kernel-open/nvidia/nv-tracepoint.h 'Xid (PCI:%s): %u, %s'",
        samples=("[ 8123.456789] NVRM: Xid (PCI:0000:3b:00): 177, pid=24141, name=python, new error",
                 "nvidia_dev_xid: Xid (PCI:0000:3b:00): 200, some message"),
        extract=EXTRACT,
        priority=20,
    ),
    Signature(
        id="xid.nvswitch_sxid",
        patterns=(r"SXid \([^)]*\): \d+",),
        cause="hardware_fault",
        role="fault",
        confidence="medium",
        title="NVSwitch SXid error (NVLink fabric switch)",
        extract=r"(?P<switch>nvidia-nvswitch\d+)?:? ?SXid \((?:PCI:)?(?P<bus_id>[0-9A-Fa-f]{4}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}(?:\.[0-7])?)?[^)]*\): (?P<sxid>\d+)",
        fix=(
            "The NVSwitch {switch} reported SXid {sxid}. Fatal SXids take the NVLink fabric (and "
            "every GPU job using it) down; non-fatal ones are link errors. Check Fabric Manager "
            "and the links, and drain the node if fatal:\n"
            "$ dmesg -T | grep -E 'SXid|Xid'\n"
            "$ journalctl -u nvidia-fabricmanager -n 100\n"
            "$ nvidia-smi nvlink -e"
        ),
        origin="open-gpu-kernel-modules src/common/nvswitch/kernel/inc/common_nvswitch.h "
               "('nvidia-%s: SXid (PCI:...): %05d, ...'); kernel-open/nvidia/nvswitch_event.h",
        samples=("[ 1234.5] nvidia-nvswitch3: SXid (PCI:0000:86:00.0): 20034, Fatal, Link 45 LTSSM Fault Up",
                 "nvidia-nvswitch0: SXid (PCI:...): 12028, Non-fatal, Link 32 egress non-posted PRIV error"),
        priority=75,
    ),
    Signature(
        id="xid.gpu_uuid_map",
        patterns=(r"NVRM: GPU at PCI:\S+: GPU-[0-9a-fA-F-]+",),
        cause=None,
        role="context",
        confidence="high",
        title="GPU PCI address to UUID mapping (printed once before its first Xid)",
        extract=r"GPU at PCI:(?P<bus_id>[0-9A-Fa-f]{4}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}): (?P<uuid>GPU-[0-9a-fA-F-]+)",
        fix="Maps PCI {bus_id} to {uuid}, to join Xids with NVML/NCCL device ids.",
        origin="open-gpu-kernel-modules src/nvidia/src/kernel/gpu/rc/kernel_rc.c (_krcLogUuidOnce, "
               "'NVRM: GPU at PCI:%04x:%02x:%02x: %s')",
        samples=("[ 8123.45] NVRM: GPU at PCI:0000:2b:00: GPU-0b11d014-1685-04bd-26ed-5fc0bc1c44ae",),
        priority=10,
    ),
)

BY_CODE: dict[int, Signature] = {code: next(s for s in SIGNATURES if s.id == sid) for code, sid in _CODES.items()}


def fault_class(code: int) -> tuple[str, str]:
    """What the catalog says an Xid code means, in the words the rules join on: its name, and
    `hardware` (a hardware fault the catalog is sure of), `app` (the process's own fault),
    `secondary` (a symptom of an earlier Xid or fault) or `driver` (anything the catalog is
    unsure of or has no entry for; the catalog's own finding reports it)."""
    sig = BY_CODE.get(code)
    if sig is None:
        return f"Xid {code}", "driver"
    name = re.sub(r"^Xid [\d, /-]+: ", "", sig.title)
    if sig.role == "symptom":
        return name, "secondary"
    if sig.role == "fault" and sig.confidence != "low":
        if sig.cause == "hardware_fault":
            return name, "hardware"
        if sig.cause == "rank_crash":
            return name, "app"
    return name, "driver"

# Entries whose sample another entry reads (schema.py `alone_differs`): why the verdict on
# that sample is not this entry's cause.
SIGNATURES = alone_differs(SIGNATURES, {
    "xid.preemptive_removal": (
        "Its sample names the Xid 79 it follows ('caused by previous Xid 79'); xid.fallen_off_bus reads that mention, rightly: the earlier hardware fault is the cause."
    ),
})
