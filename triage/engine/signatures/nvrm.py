"""Signatures of the NVIDIA kernel driver's (NVRM) error lines that are not Xids, beyond the few
in system.py (fallen off the bus, GSP timeout banner, RmInitAdapter, API mismatch): the GSP /
FSP / SEC2 firmware crashing or failing to boot the GPU, a GPU reset that failed, a GPU that no
longer answers register reads, NVLink links that did not train or degraded after an uncontained
error, the Fabric Manager / IMEX daemon going away, the RC watchdog, a fatal PCIe error; and the
NV_STATUS codes of those failures as the driver's assertion lines print them. See schema.py
for the fields.

Read from NVIDIA/open-gpu-kernel-modules 595.45.04: RM's `NV_PRINTF(LEVEL_ERROR, ...)` lines (a
release build prints LEVEL_ERROR and above: src/nvidia/src/kernel/diagnostics/nvlog_printf.c),
which the kernel log shows as `NVRM: [GPU<n> ]<function>: <text>` (RmMsgPrefix; the function
name changes between releases, so no pattern relies on it), and kernel-open/nvidia's
`nv_printf(NV_DBG_ERRORS, "NVRM: ...")` / `NV_DEV_PRINTF` (`NVRM: GPU 0000:3b:00.0: <text>`).
`tools/catalog_coverage.py` counts which of them have an entry.
"""
from __future__ import annotations

from .schema import Signature

_PCI = r"NVRM: GPU (?P<bus_id>[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2})"
# RM's prefix names the driver's GPU instance (`GPU0`), not a PCI id or a CUDA ordinal.
_WHICH = r"(?:" + _PCI + r"|NVRM: (?P<gpu_index>GPU\d+))"
_ORIGIN = "open-gpu-kernel-modules 595.45.04 {files} (NV_PRINTF LEVEL_ERROR, printed as 'NVRM: GPU<n> <function>: ...')"

_CHECK = (
    "$ dmesg -T | grep -E 'NVRM' | tail -50\n"
    "$ nvidia-smi -q | grep -iE 'Recovery|Reset|Remap|GSP Firmware'\n"
)
_FIX_FIRMWARE = (
    "The GPU's firmware (GSP, FSP or SEC2) crashed, halted or could not boot the GPU; the GPU is "
    "unusable until it is reset or the node rebooted, and CUDA on it then fails ('busy or "
    "unavailable', 'unknown error', 'no CUDA-capable device'). Drain the node, reboot it (a cold "
    "boot where a warm one does not help), update the driver and VBIOS if it recurs, then RMA:\n"
    + _CHECK + "$ nvidia-bug-report.sh   # for NVIDIA support"
)
_FIX_NVLINK = (
    "NVLink links of this node did not come up or degraded: collectives between its GPUs run "
    "slower over PCIe or fail. Drain the node, check the links, the NVSwitch fabric and Fabric "
    "Manager, reset the GPUs or reboot; RMA the board or switch tray if it recurs:\n"
    "$ nvidia-smi nvlink -s; nvidia-smi nvlink -e\n"
    "$ systemctl status nvidia-fabricmanager\n"
    "$ dcgmi diag -r 3"
)


def _nvrm(id_: str, patterns: tuple[str, ...], confidence: str, priority: int, title: str, fix: str, origin: str,
          samples: tuple[str, ...], cause: str = "hardware_fault") -> Signature:
    """One family of NVRM lines: a fault of the GPU the line names (a PCI id or RM's GPU<n>)."""
    return Signature(id=id_, patterns=patterns, cause=cause, role="fault", confidence=confidence, title=title,
                     fix=fix, origin=origin, samples=samples, extract=_WHICH, priority=priority)


LINES: tuple[Signature, ...] = (
    _nvrm(
        "kernel.nvrm.gsp_crash",
        (r"GSP-CrashCat Report", r"GSP-RM entered into ICD", r"Received signal from GSP to trigger bugcheck",
         r"Received signal from GSP that PMU has halted", r"Fatal GSP-FMC Error",
         r"GSP failed to halt with GFW_BOOT", r"Timeout waiting for (?:RISC-V|Falcon) to halt",
         r"Timed out waiting for GSP (?:reset PLM|falcon reset)"),
        "medium", 80,
        "GPU firmware (GSP) crashed or halted",
        _FIX_FIRMWARE,
        _ORIGIN.format(files="src/nvidia/src/kernel/gpu/gsp/kernel_gsp.c, arch/turing/kernel_gsp_tu102.c, "
                             "arch/hopper/kernel_gsp_gh100.c, falcon/arch/*/kernel_falcon_*.c"),
        ("[ 9241.7] NVRM: GPU2 kgspHealthCheck_TU102: ****************************** GSP-CrashCat Report *******************************",
         "kernel: NVRM: GPU0 kgspService_TU102: GSP-RM entered into ICD",
         "[ 9241.7] NVRM: GPU1 _kgspRpcGspTriggerBugcheck: Received signal from GSP to trigger bugcheck! BugCode=0x1b",
         "[ 9241.7] NVRM: GPU1 _kgspRpcGspEventFecsError: Received signal from GSP that PMU has halted.",
         "[   31.2] NVRM: GPU0 kgspFmcReportErrorCode_GH100: Fatal GSP-FMC Error: SK error code =0x3, phase 0x2",
         "[   31.2] NVRM: GPU3 kflcnWaitForHaltRiscv_GA102: Timeout waiting for RISC-V to halt"),
    ),
    _nvrm(
        "kernel.nvrm.firmware_boot_failed",
        (r"RM cannot boot", r"FSP secure boot (?:partition timed out|GSP prechecks failed)", r"FSP (?:async )?command timed out",
         r"FSP queuing failed", r"Timed out waiting for (?:FSP queues|SEC2 command queue) to be empty",
         r"Timed out waiting for SEC2 Cmd Handling", r"(?:FSP|SEC2) response reported error",
         r"SEC2 command timed out", r"FWSEC (?:timed out|failed|Error Code)", r"failed to (?:execute|parse|prepare)\b.*FWSEC",
         r"failed to find required interface entry for FWSEC", r"failed to parse/prepare Falcon ucode",
         r"failed to wait for GFW boot complete", r"GSP-FMC reported an error",
         r"Timeout waiting for GSP target mask release", r"WPR2 already up, cannot proceed with booting GSP",
         r"GSP-RM proxy boot command failed", r"Cannot initialize GSP firmware RM", r"Failed to boot GSP",
         r"Error preparing GSP-RM image", r"GSP Ucode image preparation failed", r"FSP [Ff]use (?:error )?[Cc]heck",
         r"cannot be disabled on silicon", r"bailing out of RmInitAdapter", r"VBIOS boot failed",
         r"Timeout waiting for PCIE Config Space Restore from PMU", r"Error while waiting for Falcon DMA"),
        "medium", 76,
        "GPU firmware failed to boot the GPU (GSP / FSP / SEC2 / VBIOS)",
        _FIX_FIRMWARE,
        _ORIGIN.format(files="src/nvidia/arch/nvalloc/unix/src/osinit.c (RmInitAdapter), "
                             "src/nvidia/src/kernel/gpu/fsp/, gpu/sec2/, gpu/gsp/kernel_gsp*.c, kernel_gsp_fwsec.c, "
                             "gpu/bif/arch/*/kernel_bif_*.c"),
        ("[   12.3] NVRM: GPU0 kfspSendBootCommands_GH100: FSP boot cmds failed. RM cannot boot.",
         "kernel: NVRM: GPU1 kgspBootstrap_GH100: Timeout waiting for GSP target mask release. This error may be caused by several reasons: Bootrom may have failed, GSP init code may have failed or ACR failed to release target mask.",
         "[   12.3] NVRM: GPU0 kgspExecuteFwsec_TU102: failed to execute FWSEC for FRTS: FRTS error code 0x5",
         "[   12.3] NVRM: GPU0 kgspWaitForGfwBootOk_TU102: failed to wait for GFW boot complete: 0x65 VBIOS version 96.00.89.00.01",
         "[   12.3] NVRM: GPU0 RmInitAdapter: Cannot initialize GSP firmware RM",
         "[   12.3] NVRM: GPU0 RmInitAdapter: RmInitNvDevice failed, bailing out of RmInitAdapter",
         "[   12.3] NVRM: GPU2 kfspWaitForResponse: FSP command timed out",
         "[   12.3] NVRM: GPU0 kbifDoFunctionLevelReset_GH100: VBIOS boot failed!!"),
    ),
    _nvrm(
        "kernel.nvrm.reset_failed",
        (r"PCI FLR might have failed", r"PCI save state failed, Skip FLR",
         r"(?:NVLINK|NVLink|BUS|BIF|FB_IFACE)(?: disable)?(?: prepare)? for (?:fullchip reset|devinit) failed",
         r"(?:Saving|Restoring) PCIe config space failed"),
        "medium", 72,
        "A GPU reset failed (function-level or full-chip reset)",
        "The driver could not reset GPU {bus_id}: it stays in a failed state until the node is "
        "rebooted (often power-cycled). Drain the node, reboot it, and RMA the GPU if a reset "
        "keeps failing:\n" + _CHECK + "$ nvidia-smi -r -i <gpu>   # once more, after stopping every process on it",
        "open-gpu-kernel-modules 595.45.04 kernel-open/nvidia/os-pci.c ('NVRM: %s() PCI FLR might have "
        "failed'), src/nvidia/src/kernel/gpu/bif/arch/*/kernel_bif_*.c (kbifPrepareForFullChipReset, "
        "kbif{Save,Restore}PcieConfigRegisters)",
        ("[ 8812.1] NVRM: os_pci_trigger_flr() PCI FLR might have failed",
         "[ 8812.1] NVRM: GPU0 kbifPrepareForFullChipReset_GH100: NVLink prepare for fullchip reset failed.",
         "kernel: NVRM: GPU3 kbifRestorePcieConfigRegisters_GH100: Restoring PCIe config space failed for gpu."),
    ),
    _nvrm(
        "kernel.nvrm.gpu_not_on_bus",
        (r"Check whether GPU is present on the bus", r"GPU not back on the bus after",
         r"Timeout waiting for GPU to appear on the bus", r"Timeout polling GPU back on bus"),
        "high", 86,
        "GPU does not answer on PCIe (register reads fail, not back on the bus)",
        "GPU {bus_id} no longer answers register reads or did not come back on the bus after a "
        "reset, as when it falls off the bus: every process on it is gone. Drain the node; it needs "
        "a reboot, often a power cycle; check PCIe AER errors, power and temperature; RMA if it recurs:\n"
        "$ dmesg -T | grep -E 'NVRM|AER|PCIe Bus Error'\n"
        "$ ipmitool sel list | tail -20",
        _ORIGIN.format(files="src/nvidia/src/kernel/gpu/intr/intr.c ('Failed GPU reg read : 0x%x. Check whether "
                             "GPU is present on the bus'), gpu/bif/arch/*/kernel_bif_*.c, gpu/power/kern_gpu_power.c"),
        ("[ 9001.4] NVRM: GPU1 _intrServiceStallCommonCheckBegin: Failed GPU reg read : 0xbadf1100. Check whether GPU is present on the bus",
         "[ 9001.4] NVRM: GPU0 kbifRestorePcieConfigRegisters_GH100: Timeout GPU not back on the bus after FLR,"),
    ),
    _nvrm(
        "kernel.nvrm.nvlink_degraded",
        (r"Failed to recover from uncontained NVLINK error", r"will lead to NVLINK Degradation",
         r"Triggering Degraded Mode", r"link training between GPU\S* and SWITCH failed", r"ALI Error for GPU",
         r"(?i)failed to (?:execute )?pre link training ali", r"Failed to change ALI Links to active",
         r"Timedout while checking to see if training complete", r"Nvlink post topology links setup failed",
         r"no NVSwitch connectivity to the GPU", r"Updating current NVLink config failed",
         r"(?i)failed to (?:process forced nvlink config|program nvlink speed|register (?:gpu|link ?\d*) in nvlink core"
         r"|add gpu device to nvlink core|floorsweep valid nvlink config|perform nvlink post setup)",
         r"Error issuing NvLink Training Complete callback"),
        "high", 84,
        "NVLink links did not train or degraded (NVRM)",
        _FIX_NVLINK,
        _ORIGIN.format(files="src/nvidia/src/kernel/gpu/nvlink/kernel_nvlink*.c, arch/*/kernel_nvlink_*.c, "
                             "mem_mgr/p2p_api.c"),
        ("[ 4001.1] NVRM: GPU5 knvlinkAbortUncontainedErrorRecovery_WORKITEM: Failed to recover from uncontained NVLINK error. Triggering Degraded Mode!",
         "[  40.2] NVRM: GPU0 p2papiConstruct_IMPL: link training between GPU0 and SWITCH failed with status 3f",
         "[  40.2] NVRM: GPU2 knvlinkLogAliDebugMessages_GH100: ALI Error for GPU 2::linkId 7:",
         "kernel: NVRM: GPU1 knvlinkTrainLinksToActiveAli_IMPL: Failed to change ALI Links to active!"),
    ),
    _nvrm(
        "kernel.nvrm.fabric_daemon_gone",
        (r"nvidia-fabricmanager daemon (?:shutdown detected|has invoked robust channel recovery)",
         r"nvidia-imex daemon shutdown detected", r"nvidia-imex daemon has invoked robust channel recovery",
         r"Fabric Probe failed"),
        "medium", 78,
        "NVLink fabric daemon (Fabric Manager / IMEX) went away or the fabric probe failed",
        "The driver saw nvidia-fabricmanager or nvidia-imex stop (or the GPU's fabric probe fail) "
        "and tore down the GPU work that used the NVLink fabric: multi-GPU / multi-node NVLink jobs "
        "on this node fail. Restart the daemon, read its log, and reset the GPUs if it does not recover:\n"
        "$ systemctl status nvidia-fabricmanager nvidia-imex\n"
        "$ journalctl -u nvidia-fabricmanager -u nvidia-imex -n 200\n"
        "$ nvidia-smi -q | grep -i -A3 fabric",
        _ORIGIN.format(files="src/nvidia/src/kernel/compute/fm_session_api.c, imex_session_api.c, "
                             "gpu/gpu_fabric_probe.c"),
        ("[ 5120.0] NVRM: GPU0 fmsessionapiDestruct_IMPL: nvidia-fabricmanager daemon shutdown detected, robust channel recovery invoked!",
         "[ 5120.0] NVRM: GPU0 imexsessionapiDestruct_IMPL: Abrupt nvidia-imex daemon shutdown detected, robust channel recovery invoked",
         "[   60.1] NVRM: GPU3 _gpuFabricProbeFullSanityCheck: Fabric Probe failed: 0x56"),
    ),
    _nvrm(
        "kernel.nvrm.rc_watchdog",
        (r"RC watchdog: GPU is probably locked", r"RC all \S*channels for critical error"),
        "medium", 70,
        "GPU stopped processing work (RC watchdog / critical error)",
        "The driver's robust-channel watchdog saw GPU {gpu_index} stop processing work, or tore down "
        "every channel after a critical error; all processes on it lose their contexts. Look for the "
        "Xid around it; reset the GPU, drain the node if it recurs:\n" + _CHECK,
        _ORIGIN.format(files="src/nvidia/src/kernel/gpu/rc/kernel_rc_watchdog_callback.c, kernel_rc.c"),
        ("[ 7311.9] NVRM: GPU1 krcWatchdog_IMPL: RC watchdog: GPU is probably locked!  Notify Timeout Seconds: 7",
         "[ 7311.9] NVRM: GPU1 krcRcAndNotifyAllChannels_IMPL: RC all channels for critical error 79."),
    ),
    _nvrm(
        "kernel.nvrm.pcie_fatal",
        (r"PCI-E corelogic: FATAL_ERROR_DETECTED", r"[Ss]tuck interrupt detected", r"Interrupt is stuck\. Bailing",
         r"Fatal Error while attempting to resize PCIe BARs", r"FATAL: Failed to re-allocate BAR1",
         r"pci_enable_device failed, aborting"),
        "medium", 74,
        "Fatal PCIe / interrupt error on the GPU's path (NVRM)",
        "The driver saw a fatal PCIe error on GPU {bus_id}'s path, an interrupt it cannot clear, or "
        "could not set up the GPU's PCI resources: the PCIe link, riser, switch, BIOS settings or "
        "the GPU. Drain the node; check AER errors and the BIOS's PCI settings (Above 4G decoding, "
        "resizable BAR); reseat or RMA:\n"
        "$ dmesg -T | grep -E 'AER|PCIe Bus Error|NVRM'\n"
        "$ lspci -vvv -d 10de: | grep -E 'LnkSta|UESta|Region'",
        _ORIGIN.format(files="src/nvidia/src/kernel/gpu/rc/kernel_rc.c (krcCheckBusError), gpu/intr/intr.c; "
                             "kernel-open/nvidia/nv-pci.c, nv.c"),
        ("[ 3100.2] NVRM: GPU0 krcCheckBusError_KERNEL: PCI-E corelogic: FATAL_ERROR_DETECTED",
         "[ 3100.2] NVRM: GPU2 _intrServiceStallExactList: Stuck interrupt detected for mcEngine 12",
         "[    6.1] NVRM: Fatal Error while attempting to resize PCIe BARs.",
         "[    6.1] NVRM: pci_enable_device failed, aborting"),
    ),
    _nvrm(
        "kernel.nvrm.module_init_failed",
        (r"NVRM: failed to initialize module", r"NVRM: No NVIDIA devices probed"),
        "low", 55,
        "NVIDIA kernel module did not load (no GPU usable on the node)",
        "The NVIDIA kernel module failed to load or took no GPU: nothing on this node can use CUDA. "
        "Read the lines before it (probe failures, a GPU another driver holds, a driver too old or "
        "too new for the GPU); reinstall the driver or reboot:\n"
        "$ dmesg -T | grep -E 'NVRM|nvidia' | head -50\n"
        "$ lspci -k -d 10de:   # 'Kernel driver in use'",
        "open-gpu-kernel-modules 595.45.04 kernel-open/nvidia/nv.c ('NVRM: failed to initialize module.', "
        "'NVRM: No NVIDIA devices probed.')",
        ("[    6.2] NVRM: No NVIDIA devices probed.", "[    6.2] NVRM: failed to initialize module."),
    ),
)


def _status(name: str, code: int, text: str, title: str, confidence: str, priority: int, fix: str) -> Signature:
    """An NV_STATUS code of a failure, wherever the driver prints it: an assertion line
    ('Assertion failed: <text> [<name>] (0x..) returned from ...'), a failed GSP control call
    ('GspRmControl failed: ... paramsStatus=0x.. [<name>]')."""
    return Signature(
        id=f"kernel.nvrm.status.{name.removeprefix('NV_ERR_').lower()}",
        patterns=(rf"\[{name}\]",),
        cause="hardware_fault", role="fault", confidence=confidence, title=title, fix=fix,
        origin=f"open-gpu-kernel-modules kernel-open/common/inc/nvstatuscodes.h {name} ('{text}'), printed by "
               "nvstatusToString as '<text> [<name>]' in nvassert.c / GSP RPC lines",
        samples=(f"[ 812.2] NVRM: nvAssertOkFailedNoLog: Assertion failed: {text} [{name}] (0x{code:08X}) returned from "
                 "pRmApi->Control(pRmApi, hClient, hObject, cmd, pParams, size) @ kernel_gsp.c:2520",
                 f"NVRM: GPU0 rpcRmApiControl_GSP: GspRmControl failed: hClient=0xc1d00032; hObject=0x5c000003; "
                 f"cmd=0x20800a4c; paramsSize=4; paramsStatus=0x{code:08x} [{name}]"),
        priority=priority,
    )


_FIX_RESET = (
    "The driver reports GPU state that needs a reset (a full-chip reset in progress or required): "
    "CUDA calls on it fail until then. Stop the processes on it and reset it, or reboot; drain "
    "the node if it recurs:\n" + _CHECK + "$ nvidia-smi -r -i <gpu>"
)
_FIX_MEMORY = (
    "The GPU's memory failed (ECC error, training or onlining failure). Drain the node, reset the "
    "GPU or reboot, and check its error counters; RMA if it recurs:\n"
    "$ nvidia-smi -q -d ECC,ROW_REMAPPER,PAGE_RETIREMENT\n$ dcgmi diag -r 3"
)
_FIX_FABRIC = (
    "The NVLink fabric is not usable: Fabric Manager is not running, the fabric probe failed or "
    "the driver's fabric state is stale. Start / restart Fabric Manager and check its log; reset "
    "the GPUs if it does not recover:\n"
    "$ systemctl status nvidia-fabricmanager\n$ journalctl -u nvidia-fabricmanager -n 200\n"
    "$ nvidia-smi -q | grep -i -A3 fabric"
)

STATUSES: tuple[Signature, ...] = (
    _status("NV_ERR_RESET_REQUIRED", 0x62, "Reset required", "The driver says the GPU needs a reset (NV_ERR_RESET_REQUIRED)",
            "medium", 76, _FIX_RESET),
    _status("NV_ERR_GPU_IN_FULLCHIP_RESET", 0x10, "GPU currently in full-chip reset",
            "GPU in a full-chip reset (NV_ERR_GPU_IN_FULLCHIP_RESET)", "medium", 72, _FIX_RESET),
    _status("NV_ERR_ECC_ERROR", 0x0B, "Generic ECC error", "GPU ECC error reported by the driver (NV_ERR_ECC_ERROR)",
            "medium", 80, _FIX_MEMORY),
    _status("NV_ERR_MEMORY_TRAINING_FAILED", 0x47, "Failed memory training sequence",
            "GPU memory training failed (NV_ERR_MEMORY_TRAINING_FAILED)", "high", 84, _FIX_MEMORY),
    _status("NV_ERR_GPU_MEMORY_ONLINING_FAILURE", 0x83, "GPU Memory Onlining failed",
            "GPU memory could not be onlined (NV_ERR_GPU_MEMORY_ONLINING_FAILURE)", "medium", 74, _FIX_MEMORY),
    _status("NV_ERR_INSUFFICIENT_POWER", 0x1C, "Generic Error: Low power",
            "GPU lacks power (NV_ERR_INSUFFICIENT_POWER)", "medium", 74,
            "The GPU does not get enough power (auxiliary cables, PSU, riser). Fix the power "
            "connection; the GPU stays unusable until then.\n$ nvidia-smi -q -d POWER\n$ ipmitool sel list | tail -20"),
    *(_status(f"NV_ERR_NVLINK_{kind.upper()}_ERROR", code, f"Nvlink {kind} Error", f"NVLink {kind.lower()} error "
              f"(NV_ERR_NVLINK_{kind.upper()}_ERROR)", "high", 82, _FIX_NVLINK)
      for kind, code in (("Init", 0x74), ("Minion", 0x75), ("Clock", 0x76), ("Training", 0x77), ("Configuration", 0x78))),
    _status("NV_ERR_NVLINK_FABRIC_FAILURE", 0x82, "Nvlink Fabric Probe failed",
            "NVLink fabric probe failed (NV_ERR_NVLINK_FABRIC_FAILURE)", "medium", 76, _FIX_FABRIC),
    _status("NV_ERR_FABRIC_MANAGER_NOT_PRESENT", 0x7A, "Fabric Manager is not loaded",
            "NVLink Fabric Manager is not running (NV_ERR_FABRIC_MANAGER_NOT_PRESENT)", "medium", 76, _FIX_FABRIC),
    _status("NV_ERR_FABRIC_STATE_OUT_OF_SYNC", 0x87, "NVLink fabric state cached by the driver is out of sync",
            "NVLink fabric state out of sync (NV_ERR_FABRIC_STATE_OUT_OF_SYNC)", "medium", 70, _FIX_FABRIC),
)

SIGNATURES: tuple[Signature, ...] = LINES + STATUSES
