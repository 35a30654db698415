"""Signatures of messages NCCL prints (WARN lines, INFO lines that matter, ncclResult_t texts),
drawn from NVIDIA/nccl `src/` from 2.4 to the newest release (see schema.py for the fields).

Sources read (format strings, not sample wording): `git grep -n 'WARN(' <tag> -- src` at
v2.4.8-1, v2.7.8-1, v2.11.4-1, v2.14.3-1, v2.18.6-1, v2.21.5-1, v2.23.4-1, v2.26.6-1, v2.28.9-1
and v2.30.7-1 (newest tag), plus the INFO lines of `src/init.cc`, `src/misc/param.cc`,
`src/plugin/*`, `src/ras/*`, `src/include/checks.h` (the `-> N` trail) and the external
aws-ofi-nccl plugin (`NET/OFI` messages, v1.x). Every pattern is matched anywhere in a line, so
it works behind `host:pid:tid [dev] file:line NCCL WARN`, a launcher prefix or none at all.
"""
from __future__ import annotations

from .schema import Signature

# Wrappers the samples rotate through, so each entry is tested behind several prefixes.
_W = "node1:24141:24296 [2] {file} NCCL WARN "
_TS = "[2026-05-05 06:16:47] gpu-a07:5581:5702 [0] {file} NCCL WARN "

_IB_CHECK = (
    "$ ibstat; ibv_devinfo -v | grep -E 'state|link_layer|active_mtu'\n"
    "$ perfquery -x   # symbol/link errors, port_rcv_errors, link_downed"
)
_SOCKET_CHECK = (
    "$ ip -br addr; ip route get <peer ip>\n"
    "$ export NCCL_SOCKET_IFNAME=<interface that reaches every node, e.g. eth0 or ib0>"
)
_SHM_CHECK = (
    "$ df -h /dev/shm; ls -la /dev/shm | head\n"
    "$ docker run --shm-size=16g ... (or --ipc=host); Kubernetes: mount an emptyDir with medium: Memory at /dev/shm\n"
    "$ loginctl show-user $USER -p RemoveIPC; grep RemoveIPC /etc/systemd/logind.conf   # must be 'no'"
)


def _cuda(name: str, text: str, cause: str | None, role: str, confidence: str, title: str, fix: str,
          error: str, sample: str, priority: int = 75, extract: str | None = None) -> Signature:
    """A `Cuda failure '<cudaGetErrorString text>'` family (runtime CUDACHECK and driver CUCHECK).

    `text` is the regex of the CUDA error string; it is matched after NCCL's `Cuda failure `
    (2.4+, runtime API), `Cuda failure <CUresult> ` (2.21+, driver API) and the INFO form
    `<file>:<line> Cuda failure ` of CUDACHECKIGNORE."""
    return Signature(
        id=f"nccl.cuda.{name}",
        patterns=(r"Cuda failure (?:\d+ |\S+:\d+ )?'" + text,),
        extract=r"Cuda failure (?:(?P<code>\d+) )?'(?P<error>[^']+)'",
        cause=cause,
        role=role,
        confidence=confidence,
        title=title,
        fix=fix,
        origin=("NCCL src/include/checks.h CUDACHECK `Cuda failure '%s'` 2.4-2.30, "
                f"src/include/cudawrap.h CUCHECK `Cuda failure %d '%s'` 2.21-2.30; {error}"),
        samples=(
            _W.format(file="enqueue.cc:54") + f"Cuda failure '{sample}'",
            f"[rank3]:gpu-b12:881:881 [3] include/alloc.h:125 NCCL WARN Cuda failure 2 '{sample}'",
            f"Cuda failure '{sample}'",
        ),
        priority=priority,
    )


SIGNATURES: tuple[Signature, ...] = (
    # ---------------------------------------------------------------- IB / RoCE / verbs
    Signature(
        id="nccl.ib.completion_error",
        patterns=(
            r"NET/IB ?: Got completion from peer \S+ with (?:error|status)",
            r"NET/IB ?: Got completion with error \d+",
            r"NET/IB/GIN: Got completion from peer \S+ with status",
        ),
        extract=r"(?:from peer (?P<peer>\S+) )?with (?:error |status=)(?P<status>[\w]+(?:\(\d+\))?)",
        cause="network",
        role="fault",
        confidence="high",
        title="InfiniBand/RoCE work completion error",
        fix=(
            "A work request to peer {peer} failed with status {status} (12 / IBV_WC_RETRY_EXC_ERR = "
            "transport retries exhausted: the link or the remote HCA stopped answering; 4 LOC_PROT_ERR "
            "and 10 REM_ACCESS_ERR = memory registration problem, often GPUDirect RDMA). Check the "
            "ports and counters on both ends, and whether the peer process was still alive:\n"
            + _IB_CHECK
        ),
        origin=("NCCL src/transport/net_ib.cc (ncclIbTest) 2.4-2.28, src/transport/net_ib/p2p.cc "
                "2.29-2.30, net_ib/gin.cc (NET/IB/GIN) 2.28-2.30; formats: `with error %d, opcode %d` "
                "(<=2.20), `with status=%d opcode=%d` (2.21-2.28), `with status=%s(%d)` (2.29+); "
                "status numbers from enum ibv_wc_status"),
        samples=(
            "node1:24141:24296 [2] transport/net_ib.cc:978 NCCL WARN NET/IB : Got completion from peer 10.0.0.2<40000> with error 12, opcode 0, len 0, vendor err 129 (Recv)",
            "[2026-05-05 06:16:47] gpu-a07:5581:5702 [0] transport/net_ib/p2p.cc:1623 (ncclIbTest) NCCL WARN NET/IB: Got completion from peer 10.1.4.7<53122> with status=IBV_WC_RETRY_EXC_ERR(12) opcode=IBV_WC_SEND(0) vendor_err=129 localGid ::ffff:10.1.4.6 remoteGid ::ffff:10.1.4.7 hca mlx5_3",
            "[default0]:NET/IB: Got completion from peer 10.0.35.1<49189> with status=4 opcode=0 len=5327 vendor err 81 (Send) hca mlx5_0",
            "gpu1:77:90 [0] transport/net_ib.cc:801 NCCL WARN NET/IB : Got completion with error 12, opcode 1, len 11, vendor err 129",
        ),
        priority=80,
    ),
    Signature(
        id="nccl.ib.completion_flush_error",
        patterns=(
            r"Got completion from peer \S+ with (?:error 5,|status=5 |status=IBV_WC_WR_FLUSH_ERR)",
        ),
        extract=r"from peer (?P<peer>\S+)",
        cause="network",
        role="symptom",
        confidence="low",
        title="InfiniBand completion flushed (queue pair already in error)",
        fix=(
            "Status 5 (IBV_WC_WR_FLUSH_ERR) only means the queue pair to {peer} was already in the "
            "error state: look for the first completion error (status 12, 10, 4) or the rank that died "
            "before this line; that is the cause."
        ),
        origin="NCCL src/transport/net_ib.cc / net_ib/p2p.cc 2.4-2.30; ibv_wc_status IBV_WC_WR_FLUSH_ERR (5)",
        samples=(
            _W.format(file="transport/net_ib.cc:1027") + "NET/IB : Got completion from peer 10.0.0.3<58812> with error 5, opcode 0, len 0, vendor err 249 (Recv)",
            "1: gpu-n3:42:99 [1] NCCL WARN NET/IB: Got completion from peer 10.0.0.3<58812> with status=IBV_WC_WR_FLUSH_ERR(5) opcode=IBV_WC_RECV(128) vendor_err=249 hca mlx5_1",
        ),
        priority=85,
    ),
    Signature(
        id="nccl.ib.async_fatal_event",
        patterns=(
            r"NET/IB ?: \S+:\d+ async fatal event",
            r"NET/IB ?: \S+:\d+ Got async (?:error )?event ?:",
            r"NET/IB ?: Got async event ?: ",
        ),
        extract=r"NET/IB ?: (?:(?P<hca>[^\s:]+):(?P<port>\d+) )?.*?event(?: on \w+)?(?: \([^)]*\))?[^:]*: ?(?P<event>.+)$",
        cause="network",
        role="fault",
        confidence="high",
        title="InfiniBand HCA/port async event (port error, device fatal)",
        fix=(
            "The HCA reported an asynchronous event ({event}) on {hca}: a port went down, the link "
            "flapped, or the adapter hit a fatal error. Check the port state and the kernel log of this "
            "node, and drain it if the port keeps failing:\n" + _IB_CHECK + "\n"
            "$ dmesg -T | grep -iE 'mlx5|port|link' | tail -50"
        ),
        origin=("NCCL src/transport/net_ib.cc `Got async event : %s` 2.4-2.18, `%s:%d Got async event` "
                "2.21, `%s:%d async fatal event[ on CQ/QP/SRQ]: %s` 2.23-2.30 (net_ib/common.cc 2.29+); "
                "ibv_event_type strings from ibv_event_type_str"),
        samples=(
            _W.format(file="transport/net_ib.cc:82") + "NET/IB : Got async event : port error",
            "[rank5]:gpu-c02:912:950 [5] transport/net_ib/common.cc:120 NCCL WARN NET/IB : mlx5_2:1 async fatal event: local catastrophic error",
            "NET/IB : mlx5_0:1 async fatal event on QP (0x55d0c8a1c2b0): local work queue catastrophic error",
        ),
        priority=80,
    ),
    Signature(
        id="nccl.ib.async_nonfatal_event",
        patterns=(r"NET/IB ?: \S+:\d+ Got non-fatal async event",),
        extract=r"NET/IB ?: (?P<hca>[^\s:]+):(?P<port>\d+) Got non-fatal async event: (?P<event>.+)$",
        cause="network",
        role="context",
        confidence="low",
        title="InfiniBand non-fatal async event",
        fix="A non-fatal HCA event ({event}) on {hca}; NCCL continues. Worth correlating with later IB errors.",
        origin="NCCL src/transport/net_ib.cc 2.28, net_ib/common.cc 2.29-2.30",
        samples=(_TS.format(file="transport/net_ib/common.cc:141") + "NET/IB : mlx5_4:1 Got non-fatal async event: port active(9)",),
        priority=70,
    ),
    Signature(
        id="nccl.ib.gid_table_changed",
        patterns=(r"NET/IB ?: \S+:\d+ GID table changed",),
        extract=r"NET/IB ?: (?P<hca>[^\s:]+):(?P<port>\d+) GID table changed",
        cause="network",
        role="fault",
        confidence="medium",
        title="RoCE GID table changed during the run (interface address changed)",
        fix=(
            "The GID table of {hca} port {port} changed while NCCL was using it: an IP address was "
            "added/removed on the RoCE interface (DHCP renewal, NetworkManager, a container network "
            "plugin). Connections using the old GID break. Pin the address and the GID index:\n"
            "$ show_gids   # or: ls /sys/class/infiniband/{hca}/ports/{port}/gids\n"
            "$ export NCCL_IB_GID_INDEX=<stable RoCEv2 index>"
        ),
        origin="NCCL src/transport/net_ib.cc 2.28, net_ib/common.cc 2.29-2.30 (IBV_EVENT_GID_CHANGE)",
        samples=(_W.format(file="transport/net_ib/common.cc:133") + "NET/IB : mlx5_bond_0:1 GID table changed",),
        priority=75,
    ),
    Signature(
        id="nccl.ib.unknown_event",
        patterns=(r"NET/IB ?: \S+:\d+ unknown event type",),
        cause="network",
        role="fault",
        confidence="low",
        title="InfiniBand async event of unknown type",
        fix="The HCA reported an event NCCL does not know. Check the port state and dmesg:\n" + _IB_CHECK,
        origin="NCCL src/transport/net_ib.cc 2.23-2.28, net_ib/common.cc 2.29-2.30",
        samples=("NET/IB : mlx5_1:1 unknown event type (23)",),
        priority=60,
    ),
    Signature(
        id="nccl.ib.device_open_failed",
        patterns=(
            r"NET/IB ?: Unable to (?:open|query) device \S+",
            r"NET/IB ?: Unable to query port(?:_num)? \d+",
        ),
        extract=r"Unable to (?:open|query) (?:device (?P<hca>\S+)|port(?:_num)? (?P<port>\d+))",
        cause="network",
        role="fault",
        confidence="high",
        title="InfiniBand device could not be opened or queried",
        fix=(
            "libibverbs sees the HCA but cannot open/query it: the device is down, its driver "
            "(mlx5_core/ib_uverbs) is not loaded, or the container lacks /dev/infiniband. Check:\n"
            "$ ls -la /dev/infiniband; lsmod | grep -E 'ib_uverbs|mlx5_ib'\n"
            "$ ibv_devinfo   # does every device open?\n"
            "$ docker run --device=/dev/infiniband --cap-add=IPC_LOCK ...   # in containers"
        ),
        origin="NCCL src/transport/net_ib.cc 2.4-2.28, net_ib/init.cc 2.29-2.30 (ncclIbInit)",
        samples=(
            _W.format(file="transport/net_ib.cc:170") + "NET/IB : Unable to open device mlx5_3",
            "[default2]:gpu-d1:300:300 [2] NCCL WARN NET/IB : Unable to query port_num 1",
        ),
        priority=75,
    ),
    Signature(
        id="nccl.ib.no_ip_interface",
        patterns=(r"NET/IB ?: No IP interface found",),
        cause="network",
        role="fault",
        confidence="high",
        title="IB transport found no IP interface for its out-of-band connection",
        fix=(
            "The IB transport needs a TCP interface for its out-of-band handshake and found none "
            "matching NCCL_SOCKET_IFNAME (or no usable interface at all).\n" + _SOCKET_CHECK
        ),
        origin="NCCL src/transport/net_ib.cc 2.4-2.28, net_ib/init.cc 2.29-2.30",
        samples=("gpu-a1:1200:1200 [0] transport/net_ib.cc:262 NCCL WARN NET/IB : No IP interface found.",),
        priority=75,
    ),
    Signature(
        id="nccl.ib.modify_qp_failed",
        patterns=(r"Call to ibv_modify_qp failed",),
        extract=r"Call to ibv_modify_qp failed with (?:error )?(?:\d+ )?(?P<err>[^,]+)",
        cause="network",
        role="fault",
        confidence="high",
        title="ibv_modify_qp failed (RoCE GID index / IB routing / MTU mismatch)",
        fix=(
            "Moving the queue pair to RTR/RTS failed ({err}). On RoCE this is almost always the wrong "
            "GID index (IPv6 link-local or RoCEv1 GID picked) or a VLAN/subnet mismatch between the "
            "two NICs; on IB a wrong path/MTU. Pick the RoCEv2 IPv4 GID explicitly:\n"
            "$ show_gids\n"
            "$ export NCCL_IB_GID_INDEX=3   # the RoCEv2 IPv4 index on both nodes\n"
            "$ ibv_devinfo -v | grep -E 'active_mtu|link_layer'"
        ),
        origin=("NCCL src/misc/ibvwrap.cc `Call to ibv_modify_qp failed with error %s` 2.4-2.25, "
                "`Call to ibv_modify_qp failed with %d %s, %s` 2.26-2.30; NCCL docs "
                "troubleshooting/networking (wrong RoCE GID)"),
        samples=(
            _W.format(file="misc/ibvwrap.cc:278") + "Call to ibv_modify_qp failed with error Invalid argument",
            "[rank0]:gpu-e4:77:101 [0] misc/ibvwrap.cc:376 NCCL WARN Call to ibv_modify_qp failed with 110 Connection timed out, local GID ::ffff:10.2.0.4, remote GID ::ffff:10.2.0.9",
        ),
        priority=80,
    ),
    Signature(
        id="nccl.ib.reg_mr_failed",
        patterns=(r"Call to ibv_reg_(?:dmabuf_)?mr(?:_iova2?)? failed",),
        extract=r"Call to (?P<call>ibv_\w+) failed(?: with error (?P<err>.+?))?(?: errno \d+)?$",
        cause="network",
        role="fault",
        confidence="medium",
        title="InfiniBand memory registration failed (GPUDirect RDMA module or memlock limit)",
        fix=(
            "Registering a buffer with the HCA failed ({err}). For GPU buffers the GPUDirect RDMA "
            "kernel module must be loaded; for host buffers the locked-memory limit must be unlimited:\n"
            "$ lsmod | grep -E 'nvidia_peermem|nv_peer_mem'; sudo modprobe nvidia-peermem\n"
            "$ ulimit -l   # must be 'unlimited' (docker: --ulimit memlock=-1; k8s: IPC_LOCK)\n"
            "$ export NCCL_NET_GDR_LEVEL=LOC   # workaround: disable GPUDirect RDMA"
        ),
        origin="NCCL src/misc/ibvwrap.cc (IBV_PTR_CHECK/IBV_INT_CHECK) 2.4-2.30",
        samples=(
            _W.format(file="misc/ibvwrap.cc:197") + "Call to ibv_reg_mr failed with error Bad address",
            "[rank2]:gpu-a3:4411:4480 [2] misc/ibvwrap.cc:210 NCCL WARN Call to ibv_reg_dmabuf_mr failed with error Operation not supported errno 95",
        ),
        priority=75,
    ),
    Signature(
        id="nccl.ib.resource_create_failed",
        patterns=(r"Call to ibv_(?:create_qp|create_cq|alloc_pd|create_srq|create_comp_channel|open_device|get_device_list|query_gid|query_port|query_device|query_ece|set_ece)\S* failed",),
        extract=r"Call to (?P<call>ibv_\w+) failed(?: with error (?P<err>.+?))?(?: errno \d+)?$",
        cause="network",
        role="fault",
        confidence="medium",
        title="InfiniBand verbs resource creation/query failed (memlock limit, device down)",
        fix=(
            "{call} failed ({err}). 'Cannot allocate memory' means the locked-memory ulimit is too "
            "low; other errors mean the device or port is unusable.\n"
            "$ ulimit -l   # must be unlimited (docker: --ulimit memlock=-1; systemd: LimitMEMLOCK=infinity)\n"
            + _IB_CHECK
        ),
        origin="NCCL src/misc/ibvwrap.cc 2.4-2.30; NCCL docs troubleshooting (memlock limit)",
        samples=(
            _W.format(file="misc/ibvwrap.cc:252") + "Call to ibv_create_qp failed with error Cannot allocate memory errno 12",
            "0: gpu-k9:1:1 [0] NCCL WARN Call to ibv_query_gid failed with error Invalid argument",
        ),
        priority=72,
    ),
    Signature(
        id="nccl.ib.verbs_call_failed",
        patterns=(r"Call to ibv_\w+(?:\(\))? (?:failed|returned)",),
        extract=r"Call to (?P<call>ibv_\w+)",
        cause="network",
        role="fault",
        confidence="medium",
        title="InfiniBand verbs call failed",
        fix="A libibverbs call ({call}) failed; check the HCA and its port:\n" + _IB_CHECK,
        origin="NCCL src/misc/ibvwrap.cc, src/include/ibvwrap.h (`Call to ibv_poll_cq() returned %d`) 2.4-2.30",
        samples=(
            _W.format(file="include/ibvwrap.h:1090") + "Call to ibv_poll_cq() returned 1",
            "Call to ibv_dealloc_pd failed with error Device or resource busy errno 16",
        ),
        priority=60,
    ),
    Signature(
        id="nccl.ib.post_failed",
        patterns=(r"ibv_post_(?:send|recv)\(\) failed with error",),
        extract=r"(?P<call>ibv_post_\w+)\(\) failed with error (?P<err>[^,]+)",
        cause="network",
        role="fault",
        confidence="medium",
        title="Posting an InfiniBand work request failed",
        fix="{call} failed ({err}): the queue pair is in error or over its limits. Look for an earlier completion error or async event, then:\n" + _IB_CHECK,
        origin="NCCL src/include/ibvwrap.h 2.4-2.30",
        samples=("gpu-b2:21:40 [1] include/ibvwrap.h:1070 NCCL WARN ibv_post_send() failed with error Cannot allocate memory, Bad WR 0x7f0e2c0d5b40, First WR 0x7f0e2c0d5b40",),
        priority=70,
    ),
    Signature(
        id="nccl.ib.merge_incompatible",
        patterns=(
            r"NET/IB ?: Attempted to (?:merge|connect) incompatible devices",
            r"NET/IB ?: Remote \S+ device is incompatible with the local",
            r"NET/IB ?: Can't merge net devices with different link_layer",
            r"NET/IB ?: Local mergedDev",
        ),
        cause="network",
        role="fault",
        confidence="high",
        title="InfiniBand and RoCE NICs mixed (incompatible link layers)",
        fix=(
            "NCCL tried to merge or connect NICs of different link layers (IB vs RoCE) or a different "
            "number of NICs per node. Restrict NCCL to one kind of NIC, identical on every node:\n"
            "$ ibv_devinfo | grep -E 'hca_id|link_layer'\n"
            "$ export NCCL_IB_HCA==mlx5_0,mlx5_1   # the same list on every node"
        ),
        origin="NCCL src/transport/net_ib.cc 2.21-2.28, net_ib/init.cc + connect.cc 2.29-2.30",
        samples=(
            _W.format(file="transport/net_ib.cc:1003") + "NET/IB : Attempted to connect incompatible devices: [0]mlx5_0:1/IB and [1]mlx5_2:1/RoCE. Try selecting NICs of only one link type using NCCL_IB_HCA",
            "NET/IB : Local mergedDev=mlx5_0+mlx5_1 has a different number of devices=2 as remoteDev=mlx5_0 nRemDevs=1",
        ),
        priority=80,
    ),
    Signature(
        id="nccl.ib.collective_mismatch",
        patterns=(
            r"NET/IB ?: (?:req \d+/\d+ tag \S+ )?peer \S+ (?:collective mismatch error|posted incorrect receive info)",
            r"NET/IB ?: collective mismatch error local size",
        ),
        extract=r"peer (?P<peer>\S+)",
        cause="collective_timeout_straggler",
        role="fault",
        confidence="medium",
        title="Send/receive size mismatch over InfiniBand (ranks in different collectives)",
        fix=(
            "Peer {peer} posted a receive that does not match this rank's send: the ranks are running "
            "different collectives or sizes (desync), or use different NCCL_PROTO/NCCL_ALGO settings. "
            "Compare the collective sequence across ranks (TORCH_NCCL_DESYNC_DEBUG=1, flight recorder) "
            "and make every NCCL_* variable identical on all ranks."
        ),
        origin="NCCL src/transport/net_ib.cc 2.4-2.28, net_ib/p2p.cc 2.29-2.30",
        samples=(
            "gpu-z:5:9 [0] transport/net_ib.cc:1134 NCCL WARN NET/IB : req 3/4 tag 7 peer 10.0.0.2<55012> collective mismatch error, local size 1048576 remote size 524288",
            "NET/IB : peer 10.3.1.2<40000> collective mismatch error local size 4096 remote 2048 addr 7f00 rkey 1234 seq 12/13",
        ),
        priority=75,
    ),
    Signature(
        id="nccl.ib.roce_version",
        patterns=(r"NET/IB: (?:open|read) failed in ncclIbRoceGetVersionNum",),
        cause="network",
        role="fault",
        confidence="medium",
        title="Could not read the RoCE version of a GID from sysfs",
        fix=(
            "NCCL could not read /sys/class/infiniband/<dev>/ports/<port>/gid_attrs/types/<idx> "
            "(container without /sys, or a GID index that does not exist). Check the GID table and set "
            "the index explicitly:\n$ show_gids\n$ export NCCL_IB_GID_INDEX=<RoCEv2 index>"
        ),
        origin="NCCL src/transport/net_ib.cc 2.23-2.28, net_ib/connect.cc 2.29-2.30",
        samples=("NET/IB: open failed in ncclIbRoceGetVersionNum: No such file or directory",),
        priority=70,
    ),
    Signature(
        id="nccl.ib.flid_zero",
        patterns=(r"remote FLID configured as zero even when endpoints are on different subnets",),
        cause="network",
        role="context",
        confidence="low",
        title="IB FLID is zero across subnets (falling back to DLID)",
        fix="The IB fabric is routed across subnets but no FLID is set; NCCL falls back to the DLID. Check the subnet manager's routing if connections fail later.",
        origin="NCCL src/transport/net_ib.cc 2.23-2.28, net_ib/connect.cc 2.29-2.30",
        samples=("Warning: remote FLID configured as zero even when endpoints are on different subnets, using dlid as fallback",),
        priority=50,
    ),
    Signature(
        id="nccl.ib.fatal_comm_error",
        patterns=(r"communicator encountered a fatal error \(detected in",),
        cause="network",
        role="fault",
        confidence="medium",
        title="IB communicator hit a fatal error",
        fix="The IB network communicator was marked fatal by an async event or completion error; the line before this one names it.\n" + _IB_CHECK,
        origin="NCCL src/transport/net_ib.cc 2.23-2.28, net_ib/common.cc 2.29-2.30",
        samples=(_W.format(file="transport/net_ib.cc:128") + "communicator encountered a fatal error (detected in ncclIbTest)",),
        priority=65,
    ),
    Signature(
        id="nccl.ib.resiliency_failed",
        patterns=(
            r"NET/IB: Fatal error\. Detected \d+ failed devices",
            r"NET/IB: The error is fatal \(",
            r"NET/IB: Device \d+ marked as failed",
            r"NET/IB: Could not find a (?:replacement QP|functional device)",
            r"NET/IB: Got CQE with error",
        ),
        cause="network",
        role="fault",
        confidence="high",
        title="IB NIC failed during the run (NCCL 2.30 resiliency could not recover)",
        fix=(
            "NCCL's IB resiliency detected failed NICs and could not move the traffic to another "
            "one. Find the failed port on this node and drain it:\n" + _IB_CHECK + "\n"
            "$ dmesg -T | grep -iE 'mlx5|link down' | tail"
        ),
        origin="NCCL src/transport/net_ib/p2p_resiliency.cc, net_ib/p2p.cc 2.30",
        samples=(
            "NET/IB: Fatal error. Detected 2 failed devices out of 2 devices on the send communicator (comm=0x7f5c2c0a8e00). No device left to recover",
            "[rank1]:gpu-r2:19:70 [1] transport/net_ib/p2p_resiliency.cc:512 (ncclIbResiliencyDevFailed) NCCL WARN NET/IB: Device 1 marked as failed. Initiating recovery? yes (send comm=0x7f5c2c0a8e00, outstandingRecovery=0)",
        ),
        priority=75,
    ),
    Signature(
        id="nccl.ib.config_invalid",
        patterns=(
            r"NET/IB: NCCL_IB_SUBNET_PREFIX_LEN=\d+ is out of range",
            r"NET/IB: OOO RQ is force enabled but",
            r"NET/IB ?: Trying to merge multiple devices together when NCCL_IB_MERGE_NICS=0",
            r"NET/IB ?: (?:Can't make virtual NIC with 0 devices|Cannot allocate any more virtual devices|Cannot use physical device \d+|Trying to use non-existent virtual device)",
            r"NCCL cannot use (?:more than \d+ plane IDs|a plane ID that is)",
        ),
        cause="network",
        role="fault",
        confidence="medium",
        title="Invalid InfiniBand NIC configuration (NCCL_IB_* / NIC fusion settings)",
        fix="An NCCL_IB_* setting or the NIC fusion (virtual NIC) configuration is invalid; check the NCCL_IB_* and NCCL_NET_* variables:\n$ env | grep -E '^NCCL_(IB|NET)_'",
        origin="NCCL src/transport/net_ib.cc 2.26-2.28, net_ib/init.cc + connect.cc 2.29-2.30",
        samples=(
            "NET/IB : Trying to merge multiple devices together when NCCL_IB_MERGE_NICS=0. Please enable it or disable device merging in NCCL.",
            "gpu:1:2 [0] NCCL WARN NET/IB: NCCL_IB_SUBNET_PREFIX_LEN=40 is out of range [1,32]",
        ),
        priority=65,
    ),
    Signature(
        id="nccl.ib.mlx5dv_create_qp",
        patterns=(r"NET/IB: mlx5dv_create_qp failed to create QP",),
        cause="network",
        role="fault",
        confidence="medium",
        title="mlx5 direct-verbs QP creation failed",
        fix="Creating a queue pair through mlx5dv failed; check the memlock limit and the MLNX_OFED/rdma-core version:\n$ ulimit -l\n$ ofed_info -s",
        origin="NCCL src/transport/net_ib/connect.cc 2.30",
        samples=("NET/IB: mlx5dv_create_qp failed to create QP: Cannot allocate memory",),
        priority=70,
    ),
    Signature(
        id="nccl.ib.request_alloc",
        patterns=(r"NET/(?:IB|Socket) ?: unable to allocate (?:requests|subtasks)",),
        cause="network",
        role="fault",
        confidence="low",
        title="Network transport ran out of request slots",
        fix="The network transport had more outstanding requests than it supports, usually after the peer stopped progressing. Look for an earlier error or a hung peer.",
        origin="NCCL src/transport/net_ib.cc (net_ib/p2p.cc 2.29+), src/transport/net_socket.cc 2.4-2.30",
        samples=("NET/IB : unable to allocate requests",),
        priority=45,
    ),
    Signature(
        id="nccl.ib.mr_cache",
        patterns=(r"NET/IB: could not find mr \S+ inside cache",),
        cause="other",
        role="fault",
        confidence="low",
        title="IB memory-registration cache inconsistency (NCCL internal)",
        fix="A buffer was deregistered that NCCL had not registered (use-after-free of a registered buffer or an NCCL bug). Upgrade NCCL; check user buffer registration code.",
        origin="NCCL src/transport/net_ib.cc 2.14-2.28, net_ib/reg.cc 2.29-2.30",
        samples=("NET/IB: could not find mr 0x7f1c40000000 inside cache of 12 entries",),
        priority=50,
    ),
    Signature(
        id="nccl.ib.libibverbs_missing",
        patterns=(r"Failed to open libibverbs\.so",),
        cause=None,
        role="harmless",
        confidence="high",
        title="libibverbs not installed (IB transport disabled, sockets used)",
        fix="No RDMA user-space library on this node, so NCCL uses TCP sockets. Harmless on single-node or Ethernet-only jobs; on an IB cluster install rdma-core / MLNX_OFED in the image.",
        origin="NCCL src/misc/ibvwrap.cc 2.4-2.7 (later versions print it at INFO)",
        samples=(
            "gpu01:11007:11098 [0] misc/ibvwrap.cu:63 NCCL WARN Failed to open libibverbs.so[.1]",
            "[1,0]<stdout>:ptv-gpu01:11007:11098 [0] misc/ibvwrap.cc:63 NCCL WARN Failed to open libibverbs.so[.1]",
        ),
        priority=60,
    ),
    Signature(
        id="nccl.ib.symbol_missing",
        patterns=(r"dlvsym failed on \S+ - .* version \S+",),
        cause=None,
        role="harmless",
        confidence="medium",
        title="Optional libibverbs/mlx5 symbol missing (older rdma-core)",
        fix="The installed rdma-core lacks an optional verbs symbol; NCCL works without it (e.g. no DMA-BUF registration). Upgrade rdma-core only if a feature is missing.",
        origin="NCCL src/misc/ibvsymbols.cc / ibvwrap.cc / mlx5dvsymbols.cc 2.4-2.30",
        samples=("gpu:5:5 [0] misc/ibvsymbols.cc:65 NCCL WARN dlvsym failed on ibv_reg_dmabuf_mr - undefined symbol version IBVERBS_1.12",),
        priority=50,
    ),
    Signature(
        id="nccl.ib.no_device",
        patterns=(r"NET/IB ?: No device found",),
        cause="network",
        role="context",
        confidence="low",
        title="No InfiniBand/RoCE device found (NCCL falls back to TCP sockets)",
        fix=(
            "NCCL found no usable IB/RoCE HCA on this node and will use TCP sockets: fine on a single "
            "node, a large slowdown (and often timeouts) across nodes of an IB cluster. Check:\n"
            "$ ibv_devinfo; ls /dev/infiniband\n"
            "$ env | grep NCCL_IB_   # NCCL_IB_DISABLE=1 or an NCCL_IB_HCA filter that matches nothing?"
        ),
        origin="NCCL src/transport/net_ib.cc / net_ib/init.cc INFO 2.4-2.30",
        samples=(
            "gpu-a1:1200:1200 [0] NCCL INFO NET/IB : No device found.",
            "[default0]:gpu-a1:1200:1200 [0] NCCL INFO NET/IB : No device found.",
        ),
        priority=40,
    ),
    Signature(
        id="nccl.ib.using_devices",
        patterns=(r"NET/IB ?: Using \[\d+\]",),
        extract=r"NET/IB ?: Using (?P<devices>.*?)(?: ; OOB | OOB |;|$)",
        cause=None,
        role="context",
        confidence="high",
        title="InfiniBand/RoCE devices in use",
        fix="NCCL uses these HCAs: {devices}.",
        origin="NCCL src/transport/net_ib.cc / net_ib/init.cc INFO 2.4-2.30",
        samples=("gpu-a1:1200:1200 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [RO]; OOB ib0:10.0.0.1<0>",),
        priority=30,
    ),
    Signature(
        id="nccl.ib.hca_filter",
        patterns=(r"NCCL_IB_HCA set to \S+",),
        extract=r"NCCL_IB_HCA set to (?P<hca>\S+)",
        cause=None,
        role="context",
        confidence="high",
        title="IB HCA filter in effect",
        fix="NCCL_IB_HCA restricts NCCL to {hca}.",
        origin="NCCL src/transport/net_ib.cc / net_ib/init.cc INFO 2.4-2.30",
        samples=("gpu:1:1 [0] NCCL INFO NCCL_IB_HCA set to mlx5_0,mlx5_1",),
        priority=30,
    ),
    Signature(
        id="nccl.ib.peer_access",
        patterns=(r"failed to peer with device \d+",),
        extract=r"failed to peer with device (?P<peer_dev>\d+)\S*: (?P<code>\d+) (?P<err>.+)$",
        cause="p2p_unsupported",
        role="fault",
        confidence="high",
        title="cudaDeviceEnablePeerAccess failed between two local GPUs",
        fix=(
            "Enabling peer access to GPU {peer_dev} failed ({err}). P2P between these GPUs is broken "
            "or not allowed (IOMMU/ACS on the PCIe switch, VM passthrough, different PCIe roots).\n"
            "$ nvidia-smi topo -m; nvidia-smi topo -p2p r\n"
            "$ sudo lspci -vvv | grep -i acsctl   # ACS must be off for P2P\n"
            "$ export NCCL_P2P_DISABLE=1   # workaround"
        ),
        origin="NCCL src/transport/p2p.cc 2.4-2.11, src/transport/net.cc 2.14-2.30",
        samples=("gpu-v:81:81 [1] transport/net.cc:700 NCCL WARN failed to peer with device 0: 217 peer access is not supported between these two devices",),
        priority=80,
    ),
    # ---------------------------------------------------------------- GDRCopy
    Signature(
        id="nccl.gdr.failure",
        patterns=(
            r"GDRCOPY failure \d+",
            r"gdr_(?:pin_buffer|pin_buffer_v2|map|unmap|get_info|unpin_buffer|copy_to_mapping|copy_from_mapping|close)\(.*\) failed: -?\d+",
            r"GDRCOPY lib wrapper not initialized",
        ),
        cause="other",
        role="fault",
        confidence="medium",
        title="GDRCopy call failed (gdrdrv module or library problem)",
        fix=(
            "NCCL's GDRCopy path failed. Check the gdrdrv kernel module and library, or disable it:\n"
            "$ lsmod | grep gdrdrv; ls -la /dev/gdrdrv\n"
            "$ export NCCL_GDRCOPY_ENABLE=0"
        ),
        origin="NCCL src/include/gdrwrap.h, src/misc/gdrwrap.cc 2.11-2.30",
        samples=(
            "gpu:3:3 [0] misc/gdrwrap.cc:212 NCCL WARN gdr_pin_buffer(addr 7f3a00000000, size 2097152) failed: -22",
            "GDRCOPY failure 22",
        ),
        priority=60,
    ),
)
