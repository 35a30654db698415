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

from .schema import Signature, alone_differs

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


_IB: tuple[Signature, ...] = (
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
            "gpu-g1:7:80 [3] transport/net_ib/gin.cc:412 NCCL WARN NET/IB/GIN: Got completion from peer 10.4.0.2<38011> with status=12 opcode=0 len=0 vendor err 129 (Send) hca mlx5_2",
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
            r"NET/IB ?: \S+:\d+ Got async error event ?:",
            r"NET/IB ?: (?:\S+:\d+ )?Got async event ?: (?:CQ error|local work queue catastrophic error|invalid request local work queue error|local access violation work queue error|path migration error|local catastrophic error|port error|SRQ catastrophic error|WQ fatal error)",
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
        origin=("NCCL src/transport/net_ib.cc `Got async event : %s` 2.4-2.18 and `%s:%d Got async event` "
                "2.21 (only the fatal event types here), `%s:%d async fatal event[ on CQ/QP/SRQ]: %s` 2.23-2.30 "
                "(net_ib/common.cc 2.29+), `Got async error event` 2.23-2.26; ibv_event_type_str strings"),
        samples=(
            "gpu:8:40 [0] transport/net_ib.cc:130 NCCL WARN NET/IB : mlx5_1:1 Got async error event: port error",
            _W.format(file="transport/net_ib.cc:82") + "NET/IB : Got async event : port error",
            "[rank5]:gpu-c02:912:950 [5] transport/net_ib/common.cc:120 NCCL WARN NET/IB : mlx5_2:1 async fatal event: local catastrophic error",
            "NET/IB : mlx5_0:1 async fatal event on QP (0x55d0c8a1c2b0): local work queue catastrophic error",
        ),
        priority=80,
    ),
    Signature(
        id="nccl.ib.async_event",
        patterns=(r"NET/IB ?: (?:\S+:\d+ )?Got async event ?: ",),
        extract=r"Got async event ?: (?P<event>.+)$",
        cause="network",
        role="fault",
        confidence="low",
        title="InfiniBand async event (any type; NCCL <=2.21 warned on all of them)",
        fix="The HCA reported '{event}'. NCCL up to 2.21 printed every async event as a WARN, including benign ones ('port active', 'client reregistration', 'LID change'); they still show that the port changed state during the run (link flap, subnet manager activity).\n" + _IB_CHECK,
        origin="NCCL src/transport/net_ib.cc `NET/IB : Got async event : %s` 2.4-2.18, `%s:%d Got async event : %s` 2.21 (every event but COMM_EST); ibv_event_type_str",
        samples=("gpu:1:1 [0] transport/net_ib.cc:95 NCCL WARN NET/IB : Got async event : port active",),
        priority=60,
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
        patterns=(r"NET/IB ?: \S+:\d+ GID table changed", r"NET/IB ?: (?:\S+:\d+ )?Got async event ?: GID table change"),
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
        origin="NCCL src/transport/net_ib.cc 2.28, net_ib/common.cc 2.29-2.30; `Got async event : GID table change` 2.4-2.21 (IBV_EVENT_GID_CHANGE)",
        samples=(
            "gpu:8:40 [0] transport/net_ib.cc:95 NCCL WARN NET/IB : Got async event : GID table change",_W.format(file="transport/net_ib/common.cc:133") + "NET/IB : mlx5_bond_0:1 GID table changed",),
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
        id="nccl.ib.modify_qp_retrying",
        patterns=(r"Call to ibv_modify_qp failed with .*, retrying \d+/\d+ after",),
        cause="network",
        role="context",
        confidence="low",
        title="ibv_modify_qp failed once and NCCL retries",
        fix="NCCL retries the queue-pair transition; harmless if it then succeeds. If the WARN without 'retrying' follows, see the RoCE GID / routing advice there.",
        origin="NCCL src/misc/ibvwrap.cc INFO 2.26-2.30",
        samples=("gpu:1:1 [0] NCCL INFO Call to ibv_modify_qp failed with 110 Connection timed out, local GID ::ffff:10.0.0.1, retrying 1/5 after 1000 msec of sleep",),
        priority=82,
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
            "NET/IB : Remote RoCE device is incompatible with the local [0]mlx5_0:1/IB. Try selecting NICs of only one link type using NCCL_IB_HCA",
            "[rank4]:NET/IB : Can't merge net devices with different link_layer. i=1 remMeta.ndevs=2 link_layer=1 rem_link_layer=2",
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
            "gpu:2:30 [0] transport/net_ib.cc:703 NCCL WARN NET/IB : collective mismatch error local size 65536 remote 32768 addr 7f12a0000000 rkey 1a2b seq 4/5",
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
            "NET/IB: The error is fatal (IBV_WC_REM_ACCESS_ERR). Cannot continue.",
            "NET/IB: Could not find a replacement QP for the failed QP with qpIndex=2 (devIndex=1)",
            "[default1]:NET/IB: Got CQE with error (devIndex=0, req=0x7f00, comm=0x7f01 (send), wr_id=17, qp_num=4412)",
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
            "NET/IB: OOO RQ is force enabled but AR is not enabled, which is required for OOO RQ (device=mlx5_0)",
            "NET/IB : Trying to use non-existent virtual device 9",
            "NCCL cannot use more than 4 plane IDs.",
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
        origin="NCCL src/transport/net_ib.cc / net_ib/init.cc INFO 2.7-2.30",
        samples=("gpu:1:1 [0] NCCL INFO NCCL_IB_HCA set to mlx5_0,mlx5_1",),
        priority=30,
    ),
    Signature(
        id="nccl.ib.gdr_disabled",
        patterns=(r"NET/\S+ : GPU Direct RDMA Disabled for HCA \d+", r"GPU Direct RDMA Disabled for GPU \S+ / HCA \S+ \(distance"),
        cause="network",
        role="context",
        confidence="low",
        title="GPUDirect RDMA disabled (NIC cannot read GPU memory, or too far in the PCIe topology)",
        fix="NCCL will stage network traffic through host memory (lower bandwidth, more CPU). 'for HCA' means the NIC/driver cannot register GPU memory (nvidia-peermem not loaded, no DMA-BUF); 'distance' means the NIC is too far from the GPU (NCCL_NET_GDR_LEVEL).\n$ lsmod | grep nvidia_peermem\n$ nvidia-smi topo -m",
        origin="NCCL src/graph/topo.cc INFO `NET/%s : GPU Direct RDMA %s for HCA %d '%s'` 2.13-2.30, src/graph/paths.cc INFO `GPU Direct RDMA Disabled for GPU %lx / HCA %d (distance %d > %d)` 2.3-2.28",
        samples=(
            "gpu:1:1 [0] NCCL INFO GPU Direct RDMA Disabled for GPU 1b000 / HCA 3 (distance 5 > 4)","gpu:1:1 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0'",),
        priority=35,
    ),
    Signature(
        id="nccl.ib.hint",
        patterns=(r"HINT: (?:In many cases this error occurs when|To confirm|Default value is \d+, which is)",
                  r"HINT: See https://\S+#nccl-ib-timeout"),
        extract=r"HINT: (?P<hint>.+)$",
        cause="network",
        role="context",
        confidence="low",
        title="NCCL hint after an IB completion error",
        fix="NCCL's own hint for the preceding IB error: {hint}",
        origin="NCCL src/transport/net_ib/common.h printIbWcStatusHint INFO 2.30 (ACS / GDR, NIC cross-rail, NCCL_IB_TIMEOUT, NCCL_IB_GID_INDEX hints)",
        samples=("gpu:1:1 [0] NCCL INFO HINT: In many cases this error occurs when ACS is enabled which would break GPU Direct RDMA protocol.",),
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
            "gpu:1:1 [0] misc/gdrwrap.cc:30 NCCL WARN GDRCOPY lib wrapper not initialized.",
            "gpu:3:3 [0] misc/gdrwrap.cc:212 NCCL WARN gdr_pin_buffer(addr 7f3a00000000, size 2097152) failed: -22",
            "GDRCOPY failure 22",
        ),
        priority=60,
    ),
)

_SOCKET: tuple[Signature, ...] = (
    # ---------------------------------------------------------------- bootstrap / sockets
    Signature(
        id="nccl.socket.connection_closed",
        patterns=(r"Connection closed by remote peer",),
        extract=r"Connection closed by remote peer ?(?P<peer>\S+)?",
        cause="rank_crash",
        role="symptom",
        confidence="medium",
        title="Peer closed its NCCL socket (the remote process most likely died)",
        fix=(
            "The process at {peer} closed the connection: it exited, crashed or was killed (or "
            "aborted its communicator). This rank's error is downstream; find the first failure on "
            "that host (its own log, dmesg for OOM-killer/Xid, the launcher's exit codes)."
        ),
        origin=("NCCL src/include/socket.h `Net : Connection closed by remote peer` 2.4-2.7, "
                "`Net : Connection closed by remote peer %s` 2.11-2.14 (misc/socket.cc), "
                "`socketProgress: Connection closed by remote peer %s` 2.18-2.30"),
        samples=(
            "a100-st-22:183006:183181 [1] misc/socket.cc:538 NCCL WARN Net : Connection closed by remote peer a100-st-23.pcluster<47861>",
            _TS.format(file="misc/socket.cc:58 (socketProgress)") + "socketProgress: Connection closed by remote peer gpu-b04<43127>",
            "[rank7]:socketProgress: Connection closed by remote peer 10.0.0.12<36003>",
        ),
        priority=75,
    ),
    Signature(
        id="nccl.socket.recv_send_failed",
        patterns=(
            r"Call to (?:recv|send) (?:from|to) \S+ failed ?: ",
            r"socketProgressOpt: Call to recv failed",
            r"Call to recv failed : ",
        ),
        extract=r"Call to (?P<op>recv|send)(?: (?:from|to) (?P<peer>\S+))? failed ?: (?P<err>.+?)(?: \(\d+\))?$",
        cause="network",
        role="symptom",
        confidence="medium",
        title="NCCL socket send/recv to a peer failed (reset by peer, broken pipe)",
        fix=(
            "The TCP connection to {peer} broke ({err}). 'Connection reset by peer' / 'Broken pipe' "
            "mean the peer went away (it crashed or was killed) or a middlebox dropped the "
            "connection; 'Connection timed out' / 'No route to host' point at the network. Check the "
            "peer's log first, then the path:\n" + _SOCKET_CHECK
        ),
        origin=("NCCL src/include/socket.h `Call to recv failed : %s` 2.4-2.7, `Net : Call to recv from "
                "%s failed : %s` 2.11-2.14, misc/socket.cc `socketProgressOpt: Call to recv from %s "
                "failed : %s` 2.18-2.23, `socketProgressOpt: Call to %s %s failed : %s` 2.26-2.28, "
                "os/linux.cc `ncclOsSocketProgressOpt: Call to %s %s failed : %s` 2.30"),
        samples=(
            "socketProgressOpt: Call to recv failed : Connection reset by peer",
            "gpu:3:3 [0] include/socket.h:405 NCCL WARN Call to recv failed : Connection reset by peer",
            "gpu-a:9:9 [0] include/socket.h:423 NCCL WARN Net : Call to recv from 10.200.84.247<58355> failed : Broken pipe",
            _W.format(file="misc/socket.cc:503") + "socketProgressOpt: Call to recv from 10.1.0.5<38271> failed : Connection reset by peer",
            "[default3]:ncclOsSocketProgressOpt: Call to send to gpu-c9<51777> failed : Connection timed out",
        ),
        priority=70,
    ),
    Signature(
        id="nccl.socket.connect_refused",
        patterns=(r"(?i)connect(?: to \S+)? (?:failed ?: |returned )Connection refused",),
        extract=r"(?i)connect(?: to (?P<peer>\S+))? (?:failed ?: |returned )Connection refused",
        cause="rendezvous_hang",
        role="symptom",
        confidence="medium",
        title="Connection refused by a peer's NCCL bootstrap/proxy port",
        fix=(
            "Nothing listens at {peer}: the peer process has not started yet, already exited, or the "
            "address belongs to the wrong interface (NCCL picked an IP the peer did not bind). Check "
            "that every rank is running and the address is the one the peer listens on:\n"
            + _SOCKET_CHECK + "\n$ ss -ltnp | grep <port>   # on the peer"
        ),
        origin=("NCCL src/include/socket.h / misc/socket.cc `Connect to %s failed : %s` 2.4-2.26, "
                "`%s: connect to %s failed : %s` and `... returned %s, exceeded error retry count` "
                "2.28-2.30 (os/linux.cc 2.30); strerror(ECONNREFUSED)"),
        samples=(
            _W.format(file="misc/socket.cc:468") + "socketStartConnect: Connect to 10.0.0.3<46323> failed : Connection refused",
            "[rank12]:gpu-f3:88:88 [4] NCCL WARN ncclSocketConnect: connect to 10.0.0.3<46323> returned Connection refused, exceeded error retry count after 35 attempts",
        ),
        priority=72,
    ),
    Signature(
        id="nccl.socket.connect_unreachable",
        patterns=(r"(?i)connect(?: to \S+)? (?:failed ?: |returned )(?:No route to host|Network is unreachable|Connection timed out|Software caused connection abort|Cannot assign requested address|Host is unreachable)",),
        extract=r"(?i)connect(?: to (?P<peer>\S+))? (?:failed ?: |returned )(?P<err>[^,]+)",
        cause="network",
        role="fault",
        confidence="medium",
        title="Peer unreachable over TCP (wrong interface, route or firewall)",
        fix=(
            "Connecting to {peer} failed with '{err}': this node has no working route to that "
            "address. Usually NCCL picked an interface that does not reach the other nodes (docker0, "
            "a link-local IPv6 or a management NIC), or a firewall drops the ports.\n" + _SOCKET_CHECK
            + "\n$ nc -vz <peer ip> <port>"
        ),
        origin=("NCCL src/include/socket.h / misc/socket.cc `Connect to %s failed : %s` 2.4-2.26, "
                "`%s: connect to %s failed : %s` 2.28-2.30 (os/linux.cc 2.30)"),
        samples=(
            "gpu-ib1:5:5 [0] misc/socket.cc:484 NCCL WARN socketStartConnect: Connect to fe80::966d:ae03:a2:8cf0%ib1<17943> failed : Software caused connection abort",
            "0: ncclSocketConnect: connect to 192.168.7.2<50123> failed : No route to host",
        ),
        priority=72,
    ),
    Signature(
        id="nccl.socket.link_local_connect_failed",
        patterns=(r"(?i)connect to fe80:[0-9a-f:]*%[\w.-]+<\d+> (?:failed|returned)",),
        extract=r"(?i)connect to (?P<peer>fe80:[0-9a-f:]*%(?P<iface>[\w.-]+))<\d+> (?:failed ?: |returned )(?P<err>[^,]+)",
        cause="network",
        role="fault",
        confidence="high",
        title="NCCL bootstraps over an IPv6 link-local address that does not reach the peer",
        fix=(
            "NCCL picked interface {iface} and its IPv6 link-local address ({peer}) for its sockets; "
            "link-local addresses are only valid on one link and often not routed or firewalled "
            "between the nodes ('{err}'). Pick an interface with a routable address, or IPv4:\n"
            "$ export NCCL_SOCKET_IFNAME=<interface with a routable address, e.g. eth0>\n"
            "$ export NCCL_SOCKET_FAMILY=AF_INET\n$ ip -br addr"
        ),
        origin=("NCCL src/misc/socket.cc socketStartConnect `Connect to %s failed : %s` / `%s: connect to %s "
                "returned %s` with a `fe80::...%%<iface>` address from ncclSocketToString (2.4-2.30)"),
        samples=(
            "node-b:31:31 [0] misc/socket.cc:484 NCCL WARN socketStartConnect: Connect to fe80::a288:c2ff:fe0d:1c44%eth2<41221> failed : Network is unreachable",
            "[rank5]:node-b:31:31 [1] NCCL WARN ncclSocketConnect: connect to fe80::a288:c2ff:fe0d:1c44%ib0<38845> returned Connection timed out, exceeded error retry count after 35 attempts",
        ),
        priority=80,
    ),
    Signature(
        id="nccl.socket.connect_docker_bridge",
        patterns=(r"(?i)connect to 172\.17\.\d{1,3}\.\d{1,3}<\d+> (?:failed|returned)",),
        extract=r"(?i)connect to (?P<peer>172\.17\.\d{1,3}\.\d{1,3})<\d+> (?:failed ?: |returned )(?P<err>[^,]+)",
        cause="network",
        role="fault",
        confidence="medium",
        title="NCCL connects to an address on Docker's default bridge (docker0 picked as the NCCL interface)",
        fix=(
            "The peer address {peer} is in 172.17.0.0/16, Docker's default bridge network: NCCL chose docker0 "
            "(or a container's bridge address) as its socket interface, which other hosts cannot reach ('{err}'). "
            "Exclude it, or name the data interface:\n"
            "$ export NCCL_SOCKET_IFNAME=^docker0,lo   # or =eth0 / ib0\n" + _SOCKET_CHECK
        ),
        origin=("NCCL src/misc/socket.cc socketStartConnect `Connect to %s failed : %s` 2.4-2.26, `%s: connect to %s "
                "returned %s` 2.28-2.30, with an address of Docker's default bridge pool 172.17.0.0/16 (docker0, "
                "Docker daemon default `bip`)"),
        samples=(
            "trainer-b:4410:4470 [2] misc/socket.cc:484 NCCL WARN socketStartConnect: Connect to 172.17.0.3<52110> failed : Connection refused",
            "trainer-b:4410:4470 [2] NCCL WARN ncclSocketConnect: connect to 172.17.0.1<41000> returned No route to host, exceeded error retry count after 35 attempts",
        ),
        priority=79,
    ),
    Signature(
        id="nccl.socket.connect_failed",
        patterns=(
            r"(?i)connect to \S+ failed ?: ",
            r"connect(?: to \S+)? returned .*, exceeded error retry count",
            r"socket(?:Start|Poll)Connect: exceeded (?:retries|timeouts) \(\d+\)",
            r"[sS]ocketPollConnect(?: poll\(\)| to \S+)? (?:failed with error|returned)",
            r"socketPollConnect: Connect to \S+ returned",
        ),
        extract=r"(?i)connect to (?P<peer>\S+)(?: (?:failed ?: |returned )(?P<err>[^,(]+))?",
        cause="network",
        role="fault",
        confidence="low",
        title="NCCL could not open a TCP connection to a peer",
        fix=(
            "A TCP connection to a peer ({peer}) failed or kept failing after retries. Check that the "
            "peer runs, that the chosen interface reaches it, and that no firewall blocks the ports:\n"
            + _SOCKET_CHECK
        ),
        origin=("NCCL src/include/socket.h, src/misc/socket.cc 2.4-2.28 (socketStartConnect, "
                "socketPollConnect), src/os/linux.cc 2.30"),
        samples=(
            "gpu:3:3 [0] include/socket.h:361 NCCL WARN Connect to 10.0.0.7<43001> failed : Operation now in progress",
            "[rank2]:ncclSocketConnect: connect to 10.0.0.7<43001> returned Connection timed out, exceeded error retry count after 12 attempts",
            _W.format(file="misc/socket.cc:456") + "socketStartConnect: exceeded retries (20000)",
            "ncclOsSocketPollConnect to 10.9.8.7<44221> failed with error Connection reset by peer",
            "[rank1]:socketPollConnect: Connect to 10.2.2.2<39113> returned 111(Connection refused) errno 111(Connection refused)",
        ),
        priority=55,
    ),
    Signature(
        id="nccl.socket.connect_retrying",
        patterns=(r"Call to (?:connect|accept) returned .*, retrying", r"connect to \S+ returned .*, retrying \(\d+/\d+\)"),
        cause="rendezvous_hang",
        role="context",
        confidence="low",
        title="NCCL retrying a TCP connect (peer not listening yet)",
        fix="NCCL keeps retrying a connection (INFO, not yet a failure); normal for a few seconds at start-up while peers come up. If the WARN `exceeded error retry count` follows, the peer never started or is unreachable.",
        origin="NCCL src/include/socket.h, src/misc/socket.cc INFO `Call to connect returned %s, retrying` 2.4-2.23, `%s: connect to %s returned %s, retrying (%d/%ld)` 2.26-2.30",
        samples=(
            "gpu:1:1 [0] NCCL INFO ncclSocketConnect: connect to 10.0.0.7<43001> returned Connection refused, retrying (3/34) after sleep for 300 msec","gpu:1:1 [0] NCCL INFO Call to connect returned Connection refused, retrying",),
        priority=76,
    ),
    Signature(
        id="nccl.socket.accept_failed",
        patterns=(
            r"(?:socket|ncclOsSocket)TryAccept: (?:Accept failed|exceeded error retry count)",
            r"\[Service thread\] Accept failed",
        ),
        cause="network",
        role="fault",
        confidence="medium",
        title="Accepting a TCP connection failed",
        fix="accept() failed on NCCL's listening socket (file-descriptor limit, or the connection was reset while being set up):\n$ ulimit -n   # raise it if low\n" + _SOCKET_CHECK,
        origin="NCCL src/misc/socket.cc 2.18-2.28, src/os/linux.cc 2.30, src/proxy.cc 2.14-2.28",
        samples=(
            "[Service thread] Accept failed Too many open files","socketTryAccept: Accept failed: Too many open files",),
        priority=60,
    ),
    Signature(
        id="nccl.socket.wrong_magic",
        patterns=(r"socketFinalizeAccept(?: from \S+)?: wrong magic",),
        cause="rendezvous_hang",
        role="fault",
        confidence="medium",
        title="A foreign connection reached NCCL's port (another job or a scanner)",
        fix=(
            "Something that is not a rank of this NCCL job connected to its port: another job using "
            "the same NCCL_COMM_ID/MASTER_PORT, a leftover process from an earlier run, or a port "
            "scanner. Use a unique port per job and kill stale processes:\n"
            "$ ss -tnp | grep <port>"
        ),
        origin="NCCL src/misc/socket.cc 2.18-2.26 (socketFinalizeAccept)",
        samples=("socketFinalizeAccept: wrong magic 3f8a2c1d != 4f3b7ac4d2d1e9f0",),
        priority=70,
    ),
    Signature(
        id="nccl.socket.wrong_type",
        patterns=(r"socketFinalizeAccept(?: from \S+)?: wrong type \d+ != \d+",),
        cause="network",
        role="fault",
        confidence="medium",
        title="Socket of the wrong kind connected (network transport mismatch between nodes)",
        fix=(
            "A connection of another NCCL socket type arrived (e.g. a proxy/network connection on the "
            "bootstrap port). Seen when the nodes disagree on the transport (one node uses InfiniBand, "
            "the other falls back to sockets) or mix NCCL versions. Make IB work on every node, or "
            "force sockets everywhere:\n$ ibv_devinfo   # on each node\n$ export NCCL_IB_DISABLE=1   # same on all nodes"
        ),
        origin="NCCL src/misc/socket.cc 2.18-2.28 (socketFinalizeAccept)",
        samples=("gpu-a:4242:4300 [1] misc/socket.cc:442 NCCL WARN socketFinalizeAccept: wrong type 3 != 4",
                 "gpu-b:5120:5177 [0] misc/socket.cc:534 NCCL WARN socketFinalizeAccept from 10.0.0.7<48211>: wrong type 4 != 3"),
        priority=70,
    ),
    Signature(
        id="nccl.socket.no_interface",
        patterns=(
            r"NET/Socket ?: no interface found",
            r"Bootstrap ?: no socket interface found",
            r"NET/Socket ?: No usable listening interface found",
        ),
        cause="network",
        role="fault",
        confidence="high",
        title="No usable network interface for NCCL (NCCL_SOCKET_IFNAME matches nothing)",
        fix=(
            "NCCL found no interface to use: NCCL_SOCKET_IFNAME names an interface that does not "
            "exist in this node/container, or only loopback/docker interfaces exist.\n" + _SOCKET_CHECK
        ),
        origin="NCCL src/bootstrap.cc, src/transport/net_socket.cc 2.4-2.30",
        samples=(
            "gpu:1:1 [0] bootstrap.cc:1170 NCCL WARN NET/Socket : No usable listening interface found",
            "gpu-a:1:1 [0] bootstrap.cc:1192 NCCL WARN Bootstrap : no socket interface found",
            "[default0]:NET/Socket : no interface found",
        ),
        priority=80,
    ),
    Signature(
        id="nccl.bootstrap.oob_ifname",
        patterns=(r"no device found (?:matching|after excluding) .*NCCL_OOB_NET_IFNAME",),
        cause="network",
        role="fault",
        confidence="high",
        title="NCCL_OOB_NET_IFNAME matches no device",
        fix="NCCL_OOB_NET_IFNAME selects no device on this node; fix or unset it:\n$ env | grep NCCL_OOB\n$ ip -br addr",
        origin="NCCL src/bootstrap.cc 2.23-2.30",
        samples=("no device found matching mlx5_9, verify NCCL_OOB_NET_IFNAME",),
        priority=75,
    ),
    Signature(
        id="nccl.socket.no_subnet_match",
        patterns=(r"No interface found in the same subnet as remote address",),
        extract=r"remote address (?P<peer>\S+)",
        cause="network",
        role="fault",
        confidence="high",
        title="No local interface in the subnet of the root address (NCCL_COMM_ID / container network)",
        fix=(
            "NCCL looks for a local interface in the subnet of {peer} and has none: typical for "
            "containers on a bridge network (only 172.17.x inside) with NCCL_COMM_ID/MASTER_ADDR set to "
            "a host IP. Run with host networking or point NCCL at a routable interface:\n"
            "$ docker run --network=host ...\n" + _SOCKET_CHECK
        ),
        origin="NCCL src/include/socket.h 2.4-2.11, src/misc/socket.cc 2.14-2.26 (ncclFindInterfaceMatchSubnet)",
        samples=("e82c50601d13:213:213 [0] include/socket.h:197 NCCL WARN Net : No interface found in the same subnet as remote address 192.168.0.91<27030>",),
        priority=80,
    ),
    Signature(
        id="nccl.bootstrap.comm_id_invalid",
        patterns=(
            r"Invalid NCCL_COMM_ID, please use format",
            r"Net : No valid (?:<IPv4_or_hostname>:<port>|\[IPv6\]:port) pair found",
            r"Net : (?:unsupported IP family|Unsupported address family type|string is null)",
            r"ncclCommGetUniqueId should not be called when NCCL_COMM_ID is set",
        ),
        cause="rendezvous_hang",
        role="fault",
        confidence="high",
        title="Malformed NCCL_COMM_ID / root address",
        fix="NCCL_COMM_ID (or the address passed to NCCL) is not <ipv4>:<port>, [<ipv6>]:<port> or <hostname>:<port>:\n$ echo $NCCL_COMM_ID",
        origin="NCCL src/bootstrap.cc, src/include/socket.h / misc/socket.cc 2.4-2.30",
        samples=(
            "Net : unsupported IP family",
            "[rank0]:ncclCommGetUniqueId should not be called when NCCL_COMM_ID is set",
            "gpu:4:4 [0] bootstrap.cc:50 NCCL WARN Invalid NCCL_COMM_ID, please use format: <ipv4>:<port> or [<ipv6>]:<port> or <hostname>:<port>",
            "Net : No valid <IPv4_or_hostname>:<port> pair found",
        ),
        priority=80,
    ),
    Signature(
        id="nccl.socket.getaddrinfo",
        patterns=(r"Net : error encountered when getting address info",),
        extract=r"getting address info : (?P<err>.+)$",
        cause="rendezvous_hang",
        role="fault",
        confidence="medium",
        title="Root/peer hostname does not resolve",
        fix="The host name in NCCL_COMM_ID / MASTER_ADDR does not resolve on this node ({err}):\n$ getent hosts <name>\nUse an IP address or fix /etc/hosts / DNS.",
        origin="NCCL src/include/socket.h, src/misc/socket.cc 2.4-2.30 (getaddrinfo)",
        samples=("Net : error encountered when getting address info : Name or service not known",),
        priority=75,
    ),
    Signature(
        id="nccl.socket.create_failed",
        patterns=(r"(?:Net : |ncclSocketInit: )Socket creation failed",),
        extract=r"Socket creation failed : (?P<err>.+)$",
        cause="other",
        role="fault",
        confidence="medium",
        title="Creating a socket failed (file-descriptor limit)",
        fix="socket() failed ({err}); usually the open-files limit:\n$ ulimit -n; cat /proc/{pid}/limits | grep 'open files'",
        origin="NCCL src/include/socket.h / misc/socket.cc 2.4-2.23",
        samples=("ncclSocketInit: Socket creation failed : Too many open files",),
        priority=65,
    ),
    Signature(
        id="nccl.socket.internal_state",
        patterns=(
            r"nccl(?:Os|Ipc)?Socket\w+: (?:pass NULL socket|wrong socket state|unexpected socket state|socket state \(\S+\) is not ready|file descriptor is -1|invalid socket|socket is invalid)",
            r"ncclSocketMultiOp: invalid",
            r"(?:Net|ncclSocketInit) ?: connecting to address \S+ with family \d+ is neither AF_INET",
            r"NET/Socket : test called with NULL request",
        ),
        cause="other",
        role="fault",
        confidence="low",
        title="NCCL socket used in a bad state (internal, usually after an earlier failure)",
        fix="An NCCL socket was used after it failed or was closed; look for the earlier error (a peer exiting, an abort).",
        origin="NCCL src/misc/socket.cc 2.18-2.30, src/include/socket.h 2.11-2.14",
        samples=(
            "ncclSocketMultiOp: invalid socket at index 2",
            "Net : connecting to address 10.0.0.1<5000> with family 0 is neither AF_INET(2) nor AF_INET6(10)","ncclSocketSend: socket state (4) is not ready",),
        priority=35,
    ),
    Signature(
        id="nccl.bootstrap.message_truncated",
        patterns=(r"Message truncated : received \d+(?:,\d+)? bytes instead of \d+",),
        cause="version_mismatch",
        role="fault",
        confidence="medium",
        title="Bootstrap message of unexpected size (ranks disagree: NCCL versions or two jobs)",
        fix=(
            "A bootstrap peer sent a message of another size than this rank expects: the ranks run "
            "different NCCL versions, or two jobs share one NCCL_COMM_ID/MASTER_PORT. Compare "
            "the `NCCL version` lines of every rank and give each job its own port:\n"
            "$ python -c 'import torch; print(torch.cuda.nccl.version())'   # on every node"
        ),
        origin="NCCL src/bootstrap.cc 2.4-2.30 (`received %d,%d bytes instead of %d,%d` from 2.28)",
        samples=(
            _W.format(file="bootstrap.cc:140") + "Message truncated : received 1024 bytes instead of 256",
            "[rank3]:Message truncated : received 64,4096 bytes instead of 64,2048",
        ),
        priority=75,
    ),
    Signature(
        id="nccl.bootstrap.root_mismatch",
        patterns=(
            r"Bootstrap Root : mismatch in (?:rank count|info) from procs",
            r"Bootstrap Root : rank \d+ of \d+ ranks has already checked in",
            r"Bootstrap Root : localId \d+ is out of range",
        ),
        cause="rendezvous_hang",
        role="fault",
        confidence="high",
        title="Bootstrap root got inconsistent ranks (world size differs or two jobs share the root)",
        fix=(
            "The bootstrap root received ranks that disagree on the number of ranks, or the same rank "
            "twice: the world size differs between launch commands, a restarted rank re-joined a live "
            "job, or two jobs use the same NCCL_COMM_ID/MASTER_PORT. Check WORLD_SIZE/RANK on every "
            "node and use a unique port per job."
        ),
        origin="NCCL src/bootstrap.cc 2.4-2.30",
        samples=(
            "Bootstrap Root : localId 9 is out of range",
            "gpu-m:10:30 [0] bootstrap.cc:115 NCCL WARN Bootstrap Root : rank 3 of 8 ranks has already checked in",
            "Bootstrap Root : mismatch in info from procs, nranks 16 vs 8, nroots 1 vs 1, iroot 0 vs 0",
        ),
        priority=80,
    ),
    Signature(
        id="nccl.bootstrap.unexpected_connections",
        patterns=(r"Unexpected connections are not empty",),
        cause="rendezvous_hang",
        role="fault",
        confidence="low",
        title="Bootstrap closed with unmatched connections (ranks out of step)",
        fix="Bootstrap messages arrived that no rank consumed: ranks of this job ran different communicator set-ups, or another job connected. Check that all ranks create the same communicators in the same order.",
        origin="NCCL src/bootstrap.cc 2.4-2.30",
        samples=("Unexpected connections are not empty",),
        priority=50,
    ),
    Signature(
        id="nccl.socket.message_truncated",
        patterns=(r"NET/Socket : (?:peer \S+ )?message truncated : receiving \d+ bytes instead of \d+",),
        extract=r"(?:peer (?P<peer>\S+) )?message truncated",
        cause="collective_timeout_straggler",
        role="fault",
        confidence="medium",
        title="Socket transport size mismatch (ranks in different collectives or NCCL_PROTO/ALGO differ)",
        fix=(
            "Peer {peer} sent more data than this rank expected: the ranks are in different "
            "collectives or sizes (desync), or NCCL_PROTO/NCCL_ALGO differ between ranks. Make every "
            "NCCL_* variable identical on all ranks and compare the collective sequence "
            "(TORCH_NCCL_DESYNC_DEBUG=1, flight recorder)."
        ),
        origin="NCCL src/transport/net_socket.cc 2.4-2.30",
        samples=("gpu:2:50 [0] transport/net_socket.cc:521 NCCL WARN NET/Socket : peer 10.0.0.5<41234> message truncated : receiving 1048576 bytes instead of 65536. If you believe your socket network is in a healthy state, there may be a mismatch in collective sizes or environment settings (e.g. NCCL_PROTO, NCCL_ALGO) between ranks",),
        priority=75,
    ),
    Signature(
        id="nccl.socket.progress_error",
        patterns=(r"NET/Socket : socket progress error",),
        cause="network",
        role="symptom",
        confidence="medium",
        title="Socket transport progress error",
        fix="A socket-transport send/recv failed; the WARN just before names the socket error. Check the peer and the network path:\n" + _SOCKET_CHECK,
        origin="NCCL src/transport/net_socket.cc 2.4-2.30",
        samples=("NET/Socket : socket progress error",),
        priority=60,
    ),
    Signature(
        id="nccl.socket.listen_dev",
        patterns=(r"NET/Socket : ncclNetSocketListen dev=\d+ ncclNetIfs=\d+",),
        cause="network",
        role="fault",
        confidence="medium",
        title="Socket transport asked for an interface that does not exist on this node",
        fix="Nodes have different numbers of usable interfaces (NCCL_SOCKET_IFNAME matches more on some nodes). Make NCCL_SOCKET_IFNAME select the same interfaces everywhere.",
        origin="NCCL src/transport/net_socket.cc 2.26-2.30",
        samples=("NET/Socket : ncclNetSocketListen dev=1 ncclNetIfs=1",),
        priority=65,
    ),
    Signature(
        id="nccl.socket.thread_limits",
        patterns=(
            r"NET/Socket : NCCL_SOCKET_NTHREADS is greater than the maximum allowed",
            r"NET/Socket : the total number of sockets is greater than the maximum allowed",
        ),
        cause=None,
        role="harmless",
        confidence="high",
        title="NCCL_SOCKET_NTHREADS / NCCL_NSOCKS_PERTHREAD clamped",
        fix="NCCL lowered an over-large socket thread setting; harmless.",
        origin="NCCL src/transport/net_socket.cc 2.4-2.30",
        samples=(
            "NET/Socket : the total number of sockets is greater than the maximum allowed, setting NCCL_NSOCKS_PERTHREAD to 4","NET/Socket : NCCL_SOCKET_NTHREADS is greater than the maximum allowed, setting to 16",),
        priority=40,
    ),
    Signature(
        id="nccl.socket.bootstrap_using",
        patterns=(r"Bootstrap ?: Using \S+",),
        extract=r"Bootstrap ?: Using ?(?P<iface>[^:\s]+):(?P<addr>\S+)",
        cause=None,
        role="context",
        confidence="high",
        title="Bootstrap interface",
        fix="NCCL bootstraps over {iface} ({addr}).",
        origin="NCCL src/bootstrap.cc INFO `Bootstrap : Using%s` 2.4-2.25, `Bootstrap: Using%s` 2.26-2.30",
        samples=("gpu-a:1:1 [0] NCCL INFO Bootstrap : Using eth0:192.168.1.5<0>",),
        priority=30,
    ),
    Signature(
        id="nccl.socket.using",
        patterns=(r"NET/Socket : Using \[\d+\]",),
        extract=r"NET/Socket : Using \[\d+\](?P<iface>[^:\s]+):(?P<addr>\S+)",
        cause=None,
        role="context",
        confidence="high",
        title="Socket transport interfaces",
        fix="The socket transport uses {iface} ({addr}).",
        origin="NCCL src/transport/net_socket.cc INFO 2.4-2.30",
        samples=("gpu-a:1:1 [0] NCCL INFO NET/Socket : Using [0]eth0:192.168.1.5<0> [1]eth1:10.0.0.5<0>",),
        priority=30,
    ),
    # ---------------------------------------------------------------- syscalls (SYSCHECK)
    Signature(
        id="nccl.sys.bind_failed",
        patterns=(r"Call to bind failed ?: ",),
        extract=r"Call to bind failed ?: (?P<err>.+)$",
        cause="network",
        role="fault",
        confidence="high",
        title="NCCL could not bind its socket (address not local, or port in use)",
        fix=(
            "bind() failed ({err}). 'Cannot assign requested address': the address NCCL was told to use "
            "(NCCL_COMM_ID, NCCL_SOCKET_IFNAME) is not on this node/container. 'Address already in use': "
            "another process holds the port (a second job, a stale rank).\n"
            + _SOCKET_CHECK + "\n$ ss -ltnp | grep <port>"
        ),
        origin="NCCL src/include/checks.h SYSCHECK(bind) in include/socket.h 2.4-2.14, misc/socket.cc 2.18-2.30",
        samples=("e82c50601d13:213:213 [0] include/socket.h:333 NCCL WARN Call to bind failed : Cannot assign requested address",),
        priority=75,
    ),
    Signature(
        id="nccl.sys.call_failed",
        patterns=(r"Call to [a-z_]\w* failed ?: ",),
        extract=r"Call to (?P<call>\w+) failed ?: (?P<err>.+)$",
        cause="other",
        role="fault",
        confidence="low",
        title="A system call inside NCCL failed",
        fix="NCCL's {call}() failed with '{err}'. The call names the area: socket calls -> network, open/shm_open/fallocate -> /dev/shm, pthread_create -> process limits.",
        origin="NCCL src/include/checks.h SYSCHECK/SYSCHECKVAL `Call to %s failed : %s` 2.4-2.29, `Call to %s failed: %s` 2.30",
        samples=(
            "g148:14937:69361 [0] misc/shmutils.cc:93 NCCL WARN Call to open failed: No such file or directory",
            "Call to pthread_create failed : Resource temporarily unavailable",
        ),
        priority=35,
    ),
    Signature(
        id="nccl.sys.thread_failed",
        patterns=(r"Thread creation failed: ", r"Call to pthread_create failed"),
        cause="other",
        role="fault",
        confidence="medium",
        title="NCCL could not create a thread (process/thread limit)",
        fix="Thread creation failed: the user's process limit or the container's pids limit is reached:\n$ ulimit -u; cat /sys/fs/cgroup/pids.max",
        origin="NCCL src/include/checks.h 2.30 (`Thread creation failed: %s`), SYSCHECK(pthread_create) 2.4-2.29",
        samples=(
            "gpu:1:1 [0] proxy.cc:1100 NCCL WARN Call to pthread_create failed : Resource temporarily unavailable","Thread creation failed: Resource temporarily unavailable",),
        priority=60,
    ),
)

_SHM: tuple[Signature, ...] = (
    # ---------------------------------------------------------------- shared memory (/dev/shm)
    Signature(
        id="nccl.shm.create_failed",
        patterns=(
            r"Error while creating shared memory segment",
            r"Error: failed to create shared memory file",
        ),
        extract=r"(?:segment|file) (?P<segment>\S+)(?: \(size (?P<size>\d+)\))?(?:, error:? (?P<err>.+?) \(\d+\))?$",
        cause="shm_exhausted",
        role="fault",
        confidence="high",
        title="Could not create an NCCL shared-memory segment in /dev/shm",
        fix=(
            "NCCL could not create {segment} ({err}). /dev/shm is too small (the container default is "
            "64 MB) or not writable.\n" + _SHM_CHECK + "\n$ export NCCL_SHM_DISABLE=1   # workaround, slower"
        ),
        origin=("NCCL src/include/shm.h `Error while %s shared memory segment %s (size %d)` 2.4-2.11, "
                "src/misc/shmutils.cc 2.14-2.28, src/os/linux.cc 2.30 (`..., error: %s (%d)` from 2.23; "
                "`failed to create shared memory file` 2.23-2.30)"),
        samples=(
            "gpu:7:7 [1] include/shm.h:28 NCCL WARN Error while creating shared memory segment nccl-shm-recv-b7948f403864987a-0-3-0 (size 4460544)",
            _TS.format(file="os/linux.cc:780") + "Error: failed to create shared memory file /dev/shm/nccl-XXXXXX, error No space left on device (28)",
        ),
        priority=85,
    ),
    Signature(
        id="nccl.shm.attach_failed",
        patterns=(r"Error while attaching to shared memory segment",),
        extract=r"segment (?P<segment>\S+)(?: \(size (?P<size>\d+)\))?(?:, error: (?P<err>.+?) \(\d+\))?$",
        # Attaching opens a segment a peer created: a full /dev/shm fails on create or extend
        # (ENOSPC), never here. Without the errno (older NCCL, a wrapped line) the segment is
        # most likely not there (nccl.shm.attach_missing); EACCES is nccl.shm.attach_denied.
        cause="other",
        role="fault",
        confidence="medium",
        title="Could not attach to a peer's shared-memory segment",
        fix=(
            "Attaching to {segment} failed ({err}). The segment is most likely gone: the peer died or "
            "unlinked it, systemd-logind RemoveIPC deleted it, or the ranks do not share one /dev/shm "
            "(separate containers without --ipc=host).\n" + _SHM_CHECK
        ),
        origin="NCCL src/include/shm.h 2.4-2.11, src/misc/shmutils.cc 2.14-2.28, src/os/linux.cc 2.30",
        samples=("gpu-2:881:900 [1] include/shm.h:48 NCCL WARN Error while attaching to shared memory segment nccl-shm-recv-7f1c-0-1-0 (size 9637888)",),
        priority=80,
    ),
    Signature(
        id="nccl.shm.attach_denied",
        patterns=(r"Error while attaching to shared memory segment \S+ \(size \d+\), error: Permission denied",),
        extract=r"segment (?P<segment>\S+)",
        cause="shm_exhausted",
        role="fault",
        confidence="high",
        title="/dev/shm unusable: permission denied attaching to a shared-memory segment",
        fix="The process may not open {segment}: /dev/shm has the wrong mode or owner (expect drwxrwxrwt), or the ranks run as different users.\n" + _SHM_CHECK,
        origin="NCCL src/misc/shmutils.cc 2.14-2.28, src/os/linux.cc 2.30 `Error while %s shared memory segment %s (size %ld), error: %s (%d)` with strerror(EACCES)",
        samples=("g148:14937:69361 [0] misc/shmutils.cc:143 NCCL WARN Error while attaching to shared memory segment /dev/shm/nccl-glnlGK (size 14156128), error: Permission denied (13)",),
        priority=84,
    ),
    Signature(
        id="nccl.shm.attach_missing",
        patterns=(r"Error while attaching to shared memory segment \S+ \(size \d+\), error: No such file or directory",),
        extract=r"segment (?P<segment>\S+) \(size (?P<size>\d+)\)",
        cause="other",
        role="fault",
        confidence="medium",
        title="A peer's shared-memory segment does not exist (attach failed with ENOENT)",
        fix=(
            "The segment {segment} was gone when this rank attached: this is no full /dev/shm (that fails "
            "on create or extend with ENOSPC). The peer died or unlinked it early, systemd-logind RemoveIPC "
            "deleted it, the ranks do not share one /dev/shm (separate containers without --ipc=host), or an "
            "NCCL regression (try the previous release):\n"
            "$ grep -i RemoveIPC /etc/systemd/logind.conf   # must be 'no'\n"
            "$ NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,ENV,BOOTSTRAP,ALLOC <your launch command>"
        ),
        origin=("NCCL src/misc/shmutils.cc ncclShmOpen 2.14-2.28, src/os/linux.cc 2.30: `Error while %s shared memory "
                "segment %s (size %ld), error: %s (%d)` with 'attaching to' and strerror(ENOENT)"),
        samples=("node-4:2231:2290 [3] misc/shmutils.cc:100 NCCL WARN Error while attaching to shared memory segment /dev/shm/nccl-Qx81Ab (size 9637888), error: No such file or directory (2)",),
        priority=84,
    ),
    Signature(
        id="nccl.shm.extend_failed",
        patterns=(r"Error: failed to extend \S+ to \d+ bytes",),
        extract=r"failed to extend (?P<segment>\S+) to (?P<size>\d+) bytes(?:, error: (?P<err>.+?) \(\d+\))?",
        cause="shm_exhausted",
        role="fault",
        confidence="high",
        title="/dev/shm full: could not extend an NCCL segment (fallocate)",
        fix="fallocate of {segment} to {size} bytes failed ({err}): /dev/shm is full or too small.\n" + _SHM_CHECK,
        origin="NCCL src/misc/shmutils.cc 2.14-2.28, src/os/linux.cc 2.30; NCCL docs troubleshooting (shared memory)",
        samples=(
            _W.format(file="misc/shmutils.cc:91") + "Error: failed to extend /dev/shm/nccl-ZE2Xcw to 9637892 bytes, error: No space left on device (28)",
            "[default1]:Error: failed to extend /dev/shm/nccl-0aQ7 to 33554432 bytes",
        ),
        priority=85,
    ),
    Signature(
        id="nccl.shm.syscall_failed",
        patterns=(r"Call to (?:shm_open|posix_fallocate|fallocate|ftruncate|shm_unlink|mkstemp) failed ?: ",),
        extract=r"Call to (?P<call>\w+) failed ?: (?P<err>.+)$",
        cause="shm_exhausted",
        role="fault",
        confidence="high",
        title="Shared-memory system call failed (/dev/shm full or not writable)",
        fix="{call}() on /dev/shm failed ({err}).\n" + _SHM_CHECK,
        origin="NCCL src/include/shm.h (SYSCHECKVAL shm_open, posix_fallocate) 2.4-2.11, src/misc/shmutils.cc 2.14+",
        samples=(
            "gpu:9:9 [0] include/shm.h:29 NCCL WARN Call to posix_fallocate failed : No space left on device",
            "[rank0]:Call to shm_open failed : Permission denied",
        ),
        priority=82,
    ),
    Signature(
        id="nccl.shm.map_failed",
        patterns=(r"Could not map /dev/shm/\S+", r"Error: Could not map \S+ size \d+"),
        extract=r"Could not map (?P<segment>\S+)(?: size (?P<size>\d+))?(?:, error: (?P<err>.+?)(?: \(\d+\))?)?$",
        cause="shm_exhausted",
        role="fault",
        confidence="medium",
        title="mmap of an NCCL shared-memory segment failed",
        fix="Mapping {segment} failed ({err}); /dev/shm or the address space/memlock limits are exhausted.\n" + _SHM_CHECK,
        origin="NCCL src/misc/shmutils.cc 2.14-2.28, src/os/linux.cc 2.30",
        samples=("Error: Could not map /dev/shm/nccl-8rR1 size 9637892, error: Cannot allocate memory (12)",),
        priority=75,
    ),
    Signature(
        id="nccl.shm.unlink_failed",
        patterns=(r"unlink shared memory \S+ failed", r"munmap of shared memory (?:\S+ size \d+ )?failed"),
        cause="shm_exhausted",
        role="fault",
        confidence="low",
        title="Unlinking/unmapping an NCCL shared-memory segment failed",
        fix="NCCL could not remove its segment; with 'No such file or directory' something else deleted it (systemd RemoveIPC, a cleanup script).\n" + _SHM_CHECK,
        origin="NCCL src/include/shm.h 2.4-2.14, src/misc/shmutils.cc 2.18-2.28, src/os/linux.cc 2.30",
        samples=(
            "munmap of shared memory 0x7f3c00000000 size 9637888 failed, error: Invalid argument (22)","unlink shared memory /dev/shm/nccl-AbCd12 failed, error: No such file or directory (2)",),
        priority=55,
    ),
    Signature(
        id="nccl.shm.proxy_shm",
        patterns=(r"\[Service thread\] (?:proxy ops )?shm (?:close|unlink) failed",),
        cause="shm_exhausted",
        role="fault",
        confidence="low",
        title="Proxy thread could not close/unlink its shared memory",
        fix="The proxy's shared-memory segment was already gone or /dev/shm is unusable.\n" + _SHM_CHECK,
        origin="NCCL src/proxy.cc 2.14-2.30",
        samples=("[Service thread] proxy ops shm unlink failed",),
        priority=50,
    ),
    Signature(
        id="nccl.shm.locality_ignored",
        patterns=(r"Ignoring SHM locality, must be 1",),
        cause=None,
        role="harmless",
        confidence="high",
        title="Invalid NCCL_SHM_LOCALITY ignored",
        fix="NCCL_SHM_LOCALITY has an invalid value and was ignored; harmless.",
        origin="NCCL src/transport/shm.cc 2.14-2.30",
        samples=("Ignoring SHM locality, must be 1 (sender side) or 2 (receiver side, default)",),
        priority=40,
    ),
)

_CUDA_OOM_FIX = (
    "NCCL could not allocate GPU memory on this device: the application already uses almost all "
    "of it (NCCL needs buffers per peer and channel at init and when it connects new peers). Free "
    "memory or shrink NCCL's footprint:\n"
    "$ nvidia-smi --query-gpu=index,memory.used,memory.total --format=csv\n"
    "$ export NCCL_BUFFSIZE=2097152 NCCL_MAX_NCHANNELS=4   # smaller NCCL buffers\n"
    "PyTorch: lower the memory fraction or batch size; init the process group before loading the model."
)
_VERSION_FIX = (
    "$ nvidia-smi   # driver version and the highest CUDA it supports\n"
    "$ python -c 'import torch; print(torch.__version__, torch.version.cuda, torch.cuda.nccl.version())'"
)

_CUDA: tuple[Signature, ...] = (
    # ---------------------------------------------------------------- CUDA failures inside NCCL
    _cuda("out_of_memory", "out of memory'", "oom", "fault", "high",
          "CUDA out of memory inside NCCL", _CUDA_OOM_FIX,
          "cudaErrorMemoryAllocation (2) / CUDA_ERROR_OUT_OF_MEMORY", "out of memory", priority=85),
    _cuda("invalid_device_ordinal", "invalid device ordinal'", "device_ordinal", "fault", "high",
          "Invalid CUDA device ordinal (LOCAL_RANK vs CUDA_VISIBLE_DEVICES)",
          "The rank asked for a GPU index that does not exist in its CUDA_VISIBLE_DEVICES: more ranks "
          "per node than visible GPUs, or each rank sees one GPU but still calls "
          "set_device(local_rank).\n$ echo $CUDA_VISIBLE_DEVICES $LOCAL_RANK; nvidia-smi -L\n"
          "Launch --nproc-per-node <= visible GPUs, and use cuda:0 when each rank sees one GPU.",
          "cudaErrorInvalidDevice (101)", "invalid device ordinal", priority=85),
    _cuda("peer_access_unsupported", "peer access is not supported between these two devices'",
          "p2p_unsupported", "fault", "high", "GPU peer-to-peer access not supported between two GPUs",
          "CUDA refuses P2P between these GPUs (different PCIe root complexes, IOMMU/ACS, VM "
          "passthrough, consumer GPUs with P2P disabled).\n$ nvidia-smi topo -p2p r\n"
          "$ export NCCL_P2P_DISABLE=1   # or NCCL_P2P_LEVEL=NVL",
          "cudaErrorPeerAccessUnsupported (217)", "peer access is not supported between these two devices", priority=85),
    _cuda("peer_mapping", "(?:peer mapping resources exhausted|peer access has not been enabled)'",
          "p2p_unsupported", "fault", "medium", "GPU peer mapping failed",
          "CUDA peer mappings are exhausted (more than 8 peers) or were never enabled.\n"
          "$ nvidia-smi topo -m\n$ export NCCL_P2P_DISABLE=1   # workaround",
          "cudaErrorTooManyPeers (711) / cudaErrorPeerAccessNotEnabled (705)", "peer mapping resources exhausted", priority=75),
    _cuda("no_kernel_image", "no kernel image is available for execution on the device'",
          "version_mismatch", "fault", "high", "NCCL/PyTorch build has no kernels for this GPU architecture",
          "The binary was not compiled for this GPU's compute capability (too old or too new a "
          "GPU for this build of NCCL/PyTorch).\n$ nvidia-smi --query-gpu=name,compute_cap --format=csv\n"
          "Install a build that includes this architecture (e.g. a newer CUDA wheel).",
          "cudaErrorNoKernelImageForDevice (209)", "no kernel image is available for execution on the device", priority=85),
    _cuda("invalid_device_function", "invalid device function'", "version_mismatch", "fault", "medium",
          "Kernel missing for this GPU (invalid device function)",
          "A kernel was launched that does not exist for this architecture (build without this "
          "GPU's SASS/PTX, or mixed libraries).\n" + _VERSION_FIX,
          "cudaErrorInvalidDeviceFunction (98)", "invalid device function", priority=75),
    _cuda("insufficient_driver", "CUDA driver version is insufficient for CUDA runtime version'",
          "version_mismatch", "fault", "high", "NVIDIA driver too old for the CUDA runtime",
          "The installed driver is older than the CUDA runtime NCCL/PyTorch was built with. Upgrade "
          "the driver or use a build for an older CUDA (or the cuda-compat package on datacenter GPUs).\n" + _VERSION_FIX,
          "cudaErrorInsufficientDriver (35)", "CUDA driver version is insufficient for CUDA runtime version", priority=85),
    _cuda("driver_mismatch", "(?:system has unsupported display driver / cuda driver combination|forward compatibility was attempted on non supported HW|the provided PTX was compiled with an unsupported toolchain\\.?)'",
          "version_mismatch", "fault", "high", "CUDA driver/runtime combination not supported",
          "The kernel driver, libcuda (possibly a cuda-compat copy) and the runtime do not match; "
          "forward compatibility only works on datacenter GPUs.\n" + _VERSION_FIX
          + "\n$ ldconfig -p | grep libcuda.so   # a stale compat libcuda first in the path?",
          "cudaErrorSystemDriverMismatch (803) / cudaErrorCompatNotSupportedOnDevice (804) / cudaErrorUnsupportedPtxVersion (222)",
          "system has unsupported display driver / cuda driver combination", priority=85),
    _cuda("ecc_uncorrectable", "uncorrectable ECC error encountered'", "hardware_fault", "fault", "high",
          "Uncorrectable ECC error on the GPU",
          "The GPU reported an uncorrectable ECC error (pairs with Xid 48/63/64/94/95). Drain the "
          "node and check the GPU:\n$ nvidia-smi -q -d ECC,ROW_REMAPPER -i {device}\n"
          "$ dmesg -T | grep -i xid",
          "cudaErrorECCUncorrectable (214)", "uncorrectable ECC error encountered", priority=90),
    _cuda("nvlink_uncorrectable", "uncorrectable NVLink error detected during the execution'", "hardware_fault",
          "fault", "high", "Uncorrectable NVLink error",
          "An NVLink error could not be corrected (pairs with Xid 74). Drain the node and check the links:\n"
          "$ nvidia-smi nvlink -s; nvidia-smi nvlink -e\n$ dmesg -T | grep -i xid",
          "cudaErrorNvlinkUncorrectable (220)", "uncorrectable NVLink error detected during the execution", priority=90),
    _cuda("illegal_address", "an illegal memory access was encountered'", "rank_crash", "fault", "medium",
          "Illegal memory access (sticky CUDA error on this rank)",
          "A kernel on this GPU accessed invalid memory; the CUDA context is now unusable and every later "
          "call fails. Usually a bug in an application kernel (run with CUDA_LAUNCH_BLOCKING=1 or "
          "compute-sanitizer); if it comes with Xid 13/31 in dmesg check the hardware too.\n"
          "$ dmesg -T | grep -i xid",
          "cudaErrorIllegalAddress (700)", "an illegal memory access was encountered", priority=80),
    _cuda("kernel_fault", "(?:an illegal instruction was encountered|misaligned address|hardware stack error|device-side assert triggered)'",
          "rank_crash", "fault", "medium", "GPU kernel fault (sticky CUDA error on this rank)",
          "A kernel faulted on this GPU and the CUDA context is unusable. Re-run with "
          "CUDA_LAUNCH_BLOCKING=1 to find the kernel; device-side asserts are usually indexing bugs.",
          "cudaErrorIllegalInstruction (715) / cudaErrorMisalignedAddress (716) / cudaErrorHardwareStackError (714) / cudaErrorAssert (710)",
          "an illegal instruction was encountered", priority=78),
    _cuda("launch_failure", "unspecified launch failure'", "rank_crash", "fault", "low",
          "Unspecified launch failure (kernel crashed on this GPU)",
          "A kernel crashed on this GPU. Check dmesg for an Xid at the same time: with Xid 13/31/43 "
          "it is the application, with Xid 48/62/79/94/95 the GPU.\n$ dmesg -T | grep -i xid",
          "cudaErrorLaunchFailure (719)", "unspecified launch failure", priority=70),
    _cuda("launch_timeout", "the launch timed out and was terminated'", "other", "fault", "medium",
          "CUDA kernel killed by the launch watchdog",
          "A kernel ran longer than the display watchdog allows (GPU driving a display, or WSL/Windows TDR). "
          "Use a GPU without a display or raise the TDR limit.",
          "cudaErrorLaunchTimeout (702)", "the launch timed out and was terminated", priority=70),
    _cuda("no_device", "no CUDA-capable device is detected'", "device_ordinal", "fault", "medium",
          "No CUDA GPU visible to the process",
          "The process sees no GPU: CUDA_VISIBLE_DEVICES is empty/wrong, the container was started "
          "without GPUs, or the driver is not loaded.\n$ echo $CUDA_VISIBLE_DEVICES; nvidia-smi -L\n"
          "$ docker run --gpus all ...",
          "cudaErrorNoDevice (100)", "no CUDA-capable device is detected", priority=75),
    _cuda("device_busy", "(?:all )?CUDA-capable device\\(s\\) (?:is/are|are) busy or unavailable'", "device_ordinal", "fault", "medium",
          "GPU busy or unavailable (exclusive compute mode, or held by another process)",
          "The GPU is in EXCLUSIVE_PROCESS mode and another process holds it (often two ranks "
          "mapped to the same GPU), or it is unavailable.\n$ nvidia-smi -q -d COMPUTE | grep 'Compute Mode'\n"
          "$ nvidia-smi --query-compute-apps=pid,gpu_uuid --format=csv",
          "cudaErrorDevicesUnavailable (46)", "CUDA-capable device(s) is/are busy or unavailable", priority=75),
    _cuda("system_not_ready", "system not yet initialized'", "hardware_fault", "fault", "medium",
          "CUDA system not initialized (NVSwitch Fabric Manager not running)",
          "On NVSwitch systems (HGX/DGX) CUDA is unusable until nvidia-fabricmanager has configured "
          "the fabric. Cause recorded as hardware_fault (the NVSwitch fabric is down) though it is "
          "often the service, not the silicon.\n$ systemctl status nvidia-fabricmanager\n"
          "$ nvidia-smi -q | grep -A2 -i fabric",
          "cudaErrorSystemNotReady (802); cause hardware_fault = NVSwitch fabric not up (Fabric Manager), debatable vs other", "system not yet initialized", priority=80),
    _cuda("initialization_error", "initialization error'", "other", "fault", "low",
          "CUDA initialization error",
          "CUDA could not initialize in this process: CUDA used in a forked child, a driver/library "
          "mismatch, or /dev/nvidia* missing in the container.\n$ nvidia-smi; ls -la /dev/nvidia*",
          "cudaErrorInitializationError (3)", "initialization error", priority=60),
    _cuda("invalid_resource_handle", "invalid resource handle'", "other", "fault", "low",
          "CUDA invalid resource handle (stream/event used on the wrong device or context)",
          "A stream or event was used on another device or after its context was destroyed: a rank "
          "that switched devices between creating the communicator and launching on a stream, or a "
          "stream captured/destroyed elsewhere. Check that each rank calls cudaSetDevice/torch.cuda."
          "set_device before creating the communicator and its streams.",
          "cudaErrorInvalidResourceHandle (400)", "invalid resource handle", priority=60),
    _cuda("not_supported", "operation not supported'", "other", "fault", "low",
          "CUDA operation not supported (cuMem/IPC/multicast on this system)",
          "A CUDA call NCCL needs is not supported here: typically cuMem/IPC handles or NVLS multicast "
          "in a VM, container or on an old driver. Disable those features:\n"
          "$ export NCCL_CUMEM_ENABLE=0 NCCL_NVLS_ENABLE=0",
          "cudaErrorNotSupported (801) / CUDA_ERROR_NOT_SUPPORTED", "operation not supported", priority=60),
    _cuda("not_permitted", "operation not permitted(?: when stream is capturing)?'", "other", "fault", "low",
          "CUDA operation not permitted (stream capture or permissions)",
          "A CUDA call was refused: inside a CUDA-graph capture, or IPC/cuMem import not allowed "
          "(different users/containers). Check CUDA-graph capture around NCCL calls.",
          "cudaErrorNotPermitted (800) / cudaErrorStreamCaptureUnsupported (900)", "operation not permitted when stream is capturing", priority=60),
    _cuda("unknown_error", "unknown error'", "hardware_fault", "fault", "low",
          "CUDA unknown error (often the GPU fell off the bus)",
          "cudaErrorUnknown is frequently a lost GPU (Xid 79) or a driver crash. Check dmesg and "
          "nvidia-smi on this node:\n$ dmesg -T | grep -iE 'xid|fallen off'\n$ nvidia-smi",
          "cudaErrorUnknown (999)", "unknown error", priority=60),
    _cuda("driver_shutting_down", "driver shutting down'", "rank_crash", "symptom", "low",
          "CUDA driver shutting down (process already exiting)",
          "The process was exiting while NCCL still ran; the real failure is whatever made it exit.",
          "cudaErrorCudartUnloading (4)", "driver shutting down", priority=50),
    _cuda("invalid_argument", "invalid argument'", "other", "fault", "low",
          "CUDA invalid argument inside NCCL",
          "A CUDA call inside NCCL got an invalid argument (e.g. an IPC handle from another "
          "process/device). Look at the WARN lines just before and the NCCL version.",
          "cudaErrorInvalidValue (1)", "invalid argument", priority=45),
    Signature(
        id="nccl.cuda.ignored_info",
        patterns=(r"NCCL INFO \S+:\d+ (?:\(\w+\) )?Cuda failure ",),
        extract=r"Cuda failure (?:(?P<code>\d+) )?'(?P<error>[^']+)'",
        cause=None,
        role="harmless",
        confidence="medium",
        title="CUDA error that NCCL checked and ignored (INFO level)",
        fix="NCCL probed a CUDA feature, got '{error}' and carried on (CUDACHECKIGNORE / CUCHECKIGNORE print at INFO). Not a failure by itself; only the WARN form is.",
        origin="NCCL src/include/checks.h CUDACHECKIGNORE INFO `%s:%d Cuda failure '%s'` 2.9-2.29, INFO_LOC `%s:%d (%s) Cuda failure ...` 2.30; src/include/cudawrap.h CUCHECKIGNORE",
        samples=("gpu:1:1 [0] NCCL INFO misc/cudawrap.cc:36 Cuda failure 'operation not supported'", "gpu:1:1 [0] NCCL INFO include/cudawrap.h:90 (ncclCuMemEnable) Cuda failure 801 'operation not supported'"),
        priority=95,
    ),
    Signature(
        id="nccl.cuda.failure",
        patterns=(r"Cuda failure (?:\d+ |\S+:\d+ )?'",),
        extract=r"Cuda failure (?:(?P<code>\d+) )?'(?P<error>[^']+)'",
        cause="other",
        role="fault",
        confidence="low",
        title="CUDA call failed inside NCCL",
        fix="A CUDA call inside NCCL failed with '{error}'. The error text names the area (memory, device, driver, peer access); check dmesg for an Xid at the same time:\n$ dmesg -T | grep -i xid",
        origin="NCCL src/include/checks.h CUDACHECK 2.4-2.30, src/include/cudawrap.h CUCHECK 2.21-2.30",
        samples=(
            "VM-0-16:392:494 [2] enqueue.cc:54 NCCL WARN Cuda failure 'invalid configuration argument'",
            "[rank1]:Cuda failure 304 'OS call failed or operation not supported on this OS'",
        ),
        # Above the cuda.rt.* API-misuse texts (rank_crash, <= 40): behind NCCL's CUDACHECK the call
        # that was refused is NCCL's own, not the rank's code (the reason the nccl.cuda.* twins of
        # 'invalid argument' and 'invalid resource handle' read `other`). Texts that name a cause
        # of their own (memory, driver, architecture, ECC, devices, peer access) rank higher and win.
        priority=41,
    ),
    Signature(
        id="nccl.cuda.alloc_failed",
        patterns=(r"Failed to CUDA (?:calloc|malloc|host alloc|calloc async) \d+ bytes",),
        extract=r"Failed to CUDA (?P<kind>calloc async|calloc|malloc|host alloc) (?P<bytes>\d+) bytes",
        cause="oom",
        role="fault",
        confidence="medium",
        title="NCCL could not allocate GPU (or pinned host) memory",
        fix="NCCL's {kind} of {bytes} bytes failed (the preceding `Cuda failure` line says why; usually out of memory).\n" + _CUDA_OOM_FIX,
        origin="NCCL src/include/alloc.h 2.14-2.30",
        samples=(
            "gpu-h:82:82 [6] include/alloc.h:125 NCCL WARN Failed to CUDA calloc 10485760 bytes",
            "[default6]:Failed to CUDA host alloc 33554432 bytes",
        ),
        priority=75,
    ),
    Signature(
        id="nccl.cuda.cumem_alloc_failed",
        patterns=(r"Allocation failed\. No suitable space found to accommodate size",),
        cause="oom",
        role="fault",
        confidence="medium",
        title="NCCL memory pool exhausted",
        fix="NCCL's internal allocator ran out of reserved space; GPU memory is short.\n" + _CUDA_OOM_FIX,
        origin="NCCL src/allocator.cc 2.28-2.30",
        samples=("Allocation failed. No suitable space found to accommodate size=0x200000 within limit=0x4000000",),
        priority=70,
    ),
    Signature(
        id="nccl.mem.host_alloc_failed",
        patterns=(r"Failed to malloc \d+ bytes", r"Unrecoverable error detected: malloc\(size=\d+\) returned null", r"malloc of \d+ bytes failed"),
        cause="oom",
        role="fault",
        confidence="high",
        title="Host memory allocation failed inside NCCL",
        fix="malloc() failed in NCCL: the node (or the container's memory limit) is out of host memory.\n$ free -g; dmesg -T | grep -i 'out of memory'\n$ cat /sys/fs/cgroup/memory.max",
        origin="NCCL src/include/alloc.h 2.4-2.30, src/misc/utils.cc 2.14-2.30, src/transport/p2p.cc `malloc of %ld bytes failed` 2.4",
        samples=(
            "gpu:1:1 [0] misc/utils.cc:60 NCCL WARN Unrecoverable error detected: malloc(size=4294967296) returned null.",
            "gpu:1:1 [0] transport/p2p.cc:90 NCCL WARN malloc of 4194304 bytes failed","gpu:1:1 [0] include/alloc.h:38 NCCL WARN Failed to malloc 1073741824 bytes",),
        priority=75,
    ),
    Signature(
        id="nccl.cuda.driver_too_old",
        patterns=(
            r"CUDA Driver version found is \d+\. Minimum requirement is \d+",
            r"CUMEM (?:Host is )?not supported prior to CUDA",
            r"The installed CUDA driver is older than the minimum version",
            r"NCCL cannot be captured in a graph if either it wasn't built with CUDA runtime",
            r"NCCL does not support this CUDA version for CUDA graph feature",
        ),
        cause="version_mismatch",
        role="fault",
        confidence="high",
        title="NVIDIA driver too old for this NCCL",
        fix="The installed driver is older than what this NCCL build requires. Upgrade the driver or use an NCCL built for an older CUDA.\n" + _VERSION_FIX,
        origin="NCCL src/misc/cudawrap.cc 2.14-2.30, src/include/alloc.h 2.18-2.30, src/enqueue.cc / misc/strongstream.cc 2.11-2.30",
        samples=(
            "CUMEM not supported prior to CUDA 11.3",
            "The installed CUDA driver is older than the minimum version (R465) required for NCCL's CUDA Graphs support",
            "[rank1]:NCCL cannot be captured in a graph if either it wasn't built with CUDA runtime >= 11.3 or if the installed CUDA driver < R465.",
            "NCCL does not support this CUDA version for CUDA graph feature","gpu:1:1 [0] misc/cudawrap.cc:190 NCCL WARN CUDA Driver version found is 11040. Minimum requirement is 11060",),
        priority=85,
    ),
    Signature(
        id="nccl.cuda.libcuda_load",
        patterns=(
            r"Failed to find CUDA library",
            r"Failed to load CUDA missing symbol",
            r"CUDA some PFN functions not found in the library",
            r"cuDriverGetVersion failed with -?\d+",
            r"Retrieve \S+ (?:version \d+ )?failed with -?\d+",
        ),
        cause="version_mismatch",
        role="fault",
        confidence="medium",
        title="libcuda could not be loaded or lacks entry points (driver too old or missing)",
        fix="NCCL could not load libcuda.so or find its functions: the driver is missing from the container, or older than the CUDA toolkit.\n" + _VERSION_FIX + "\n$ ldconfig -p | grep libcuda",
        origin="NCCL src/misc/cudawrap.cc 2.14-2.30",
        samples=(
            "gpu:1:1 [0] misc/cudawrap.cc:170 NCCL WARN Failed to find CUDA library libcuda.so (NCCL_CUDA_PATH='') : libcuda.so: cannot open shared object file: No such file or directory",
            "Failed to load CUDA missing symbol cuDriverGetVersion",
            "CUDA some PFN functions not found in the library",
            "cuDriverGetVersion failed with 3","Retrieve cuMemCreate version 12000 failed with 500 status 0",),
        priority=70,
    ),
    Signature(
        id="nccl.cuda.max_shared_mem",
        patterns=(
            r"ncclMaxSharedMem \d+ exceeds device/fn maxSharedMem",
            r"dynamic smem \d+ exceeds device/fn maxSharedMem",
        ),
        extract=r"(?:cudaArch (?P<arch>\d+) )?(?:ncclMaxSharedMem|dynamic smem) (?P<need>\d+) exceeds device/fn maxSharedMem (?P<have>\d+)",
        cause="version_mismatch",
        role="fault",
        confidence="high",
        title="NCCL build too old for this GPU (kernel shared-memory need exceeds the device's)",
        fix=(
            "NCCL's kernels need {need} bytes of shared memory but this GPU/function allows {have}: the NCCL "
            "release predates this GPU architecture. Use an NCCL (or a PyTorch wheel bundling one) "
            "that supports this GPU.\n" + _VERSION_FIX
        ),
        origin="NCCL src/enqueue.cc: INFO `ncclMaxSharedMem %d exceeds device/fn maxSharedMem %zu` 2.25, WARN `cudaArch %d ncclMaxSharedMem %d exceeds ...` 2.26-2.29, `cudaArch %d dynamic smem %d exceeds ...` 2.30",
        samples=(
            "[2026-05-05 06:16:47] gpu:2:2 [0] enqueue.cc:97 (ncclPrepareTasks) NCCL WARN cudaArch 1030 dynamic smem 237568 exceeds device/fn maxSharedMem 232448",
            _W.format(file="enqueue.cc:90") + "cudaArch 1000 ncclMaxSharedMem 237568 exceeds device/fn maxSharedMem 232448",
            "gpu:2:2 [0] NCCL INFO ncclMaxSharedMem 214016 exceeds device/fn maxSharedMem 101376",
        ),
        priority=85,
    ),
    Signature(
        id="nccl.cuda.fp8_arch",
        patterns=(r"FP8 reduction support begins with sm90 capable devices",),
        cause="other",
        role="fault",
        confidence="high",
        title="FP8 reduction requested on a pre-Hopper GPU",
        fix="FP8 reductions need sm90+ GPUs; use bf16/fp16 reductions on this GPU.",
        origin="NCCL src/enqueue.cc 2.26-2.30",
        samples=("FP8 reduction support begins with sm90 capable devices.",),
        priority=75,
    ),
    Signature(
        id="nccl.cuda.proxy_device",
        patterns=(
            r"\[Proxy (?:Progress|Service|Service UDS)\] Failed to set CUDA (?:device|context on device) \d+",
            r"Failed to (?:create|set) CUDA context on device \d+",
        ),
        cause="other",
        role="fault",
        confidence="low",
        title="NCCL proxy thread could not set its CUDA device/context",
        fix="The proxy thread could not make its GPU current (device lost or context destroyed, e.g. after a sticky CUDA error). Look for an earlier CUDA error or Xid.\n$ dmesg -T | grep -i xid",
        origin="NCCL src/proxy.cc 2.14-2.30",
        samples=(
            "Failed to create CUDA context on device 2","[Proxy Service] Failed to set CUDA device 3",),
        priority=55,
    ),
)

_P2P: tuple[Signature, ...] = (
    # ---------------------------------------------------------------- P2P / IPC / cuMem
    Signature(
        id="nccl.p2p.peer_access_text",
        patterns=(r"(?:IPC handle|peer with device \S+) ?: \d+ peer access is not supported between these two devices",),
        cause="p2p_unsupported",
        role="fault",
        confidence="high",
        title="GPU peer-to-peer access not supported between two GPUs",
        fix=(
            "CUDA refuses P2P between these GPUs (different PCIe root complexes, IOMMU/ACS enabled, VM "
            "passthrough, consumer GPUs).\n$ nvidia-smi topo -p2p r\n"
            "$ sudo lspci -vvv | grep -i acsctl\n$ export NCCL_P2P_DISABLE=1   # workaround"
        ),
        origin="cudaErrorPeerAccessUnsupported (217) text, as printed by NCCL src/transport/p2p.cc `failed to open CUDA IPC handle : %d %s` 2.4-2.7 and others",
        samples=("gpu:4974:4981 [0] transport/p2p.cu:548 NCCL WARN failed to open CUDA IPC handle : 64 peer access is not supported between these two devices",),
        priority=80,
    ),
    Signature(
        id="nccl.p2p.ipc_handle_failed",
        patterns=(
            r"failed to open CUDA IPC handle",
            r"failed to get CUDA IPC handle to device",
            r"cudaIpcGetMemHandle failed",
        ),
        extract=r"(?:IPC handle(?: to device \S+)? ?: (?P<code>\d+) |cudaIpcGetMemHandle failed : )(?P<err>.+)$",
        cause="p2p_unsupported",
        role="fault",
        confidence="medium",
        title="CUDA IPC handle could not be created or opened between local ranks",
        fix=(
            "Sharing GPU memory between two local processes failed ({err}). The processes do not see "
            "the same GPUs (different CUDA_VISIBLE_DEVICES per rank, separate containers without "
            "--ipc=host/--pid=host), or P2P is not allowed between the GPUs.\n"
            "$ nvidia-smi topo -m\n$ export NCCL_P2P_DISABLE=1   # or NCCL_P2P_USE_CUDA_MEMCPY=1 / NCCL_CUMEM_ENABLE=0"
        ),
        origin="NCCL src/transport/p2p.cc (p2p.cu in 2.4) 2.4-2.30, src/bootstrap.cc [Rem Allocator] 2.11",
        samples=(
            "gpu:2:2 [1] transport/p2p.cc:190 NCCL WARN rank 1 failed to get CUDA IPC handle to device 0(=1b000) : 201 invalid device context",
            "gpu:974:4981 [0] transport/p2p.cu:548 NCCL WARN failed to open CUDA IPC handle : 11 invalid argument",
            "[rank1]:cudaIpcGetMemHandle failed : invalid device ordinal",
        ),
        priority=86,
    ),
    Signature(
        id="nccl.p2p.nvlink_p2p_disabled",
        patterns=(r"P2P is disabled between NVLINK connected GPUs \d+ and \d+",),
        extract=r"GPUs (?P<gpu_a>\d+) and (?P<gpu_b>\d+)",
        cause="hardware_fault",
        role="fault",
        confidence="medium",
        title="P2P disabled between NVLink-connected GPUs (likely a hardware issue)",
        fix=(
            "NVML reports NVLink between GPUs {gpu_a} and {gpu_b} but P2P is not possible; NCCL says this "
            "is probably a hardware problem (NVLink down, Fabric Manager degraded).\n"
            "$ nvidia-smi nvlink -s; nvidia-smi topo -p2p r\n$ systemctl status nvidia-fabricmanager"
        ),
        origin="NCCL src/graph/paths.cc 2.12-2.30 (WARN); cause hardware_fault because the message itself says 'probably due to a hardware issue'",
        samples=("gpu:1:1 [0] graph/paths.cc:326 NCCL WARN P2P is disabled between NVLINK connected GPUs 1 and 3. This should not be the case given their connectivity, and is probably due to a hardware issue. If you still want to proceed, you can set NCCL_IGNORE_DISABLED_P2P=1.",),
        priority=80,
    ),
    Signature(
        id="nccl.p2p.disabled_info",
        patterns=(r"P2P is disabled between connected GPUs \d+ and \d+\. You can repress this message",),
        cause="p2p_unsupported",
        role="context",
        confidence="medium",
        title="P2P disabled between PCIe-connected GPUs (CUDA reports no P2P)",
        fix="NVML/CUDA report that P2P is not possible between these GPUs although they share a PCIe switch: IOMMU/ACS or virtualization blocks it. NCCL falls back to SHM; if jobs hang or corrupt data, check ACS.\n$ nvidia-smi topo -p2p r; sudo lspci -vvv | grep -i acsctl",
        origin="NCCL src/graph/paths.cc INFO 2.12-2.30",
        samples=("gpu:1:1 [0] NCCL INFO P2P is disabled between connected GPUs 0 and 1. You can repress this message with NCCL_IGNORE_DISABLED_P2P=1.",),
        priority=40,
    ),
    Signature(
        id="nccl.p2p.uds_failed",
        patterns=(r"UDS: (?:Socket creation error|Binding to socket|Receiving data over socket|Sending data over socket|Cannot (?:bind|connect)(?: to)? provided name)",),
        cause="other",
        role="fault",
        confidence="medium",
        title="Unix-domain socket for cuMem handle exchange failed between local ranks",
        fix=(
            "NCCL exchanges cuMem file descriptors between local ranks over abstract Unix sockets. "
            "This fails when local ranks run in separate network namespaces/containers, or when the "
            "peer died. Run local ranks in one namespace, or disable cuMem:\n"
            "$ export NCCL_CUMEM_ENABLE=0"
        ),
        origin="NCCL src/misc/ipcsocket.cc 2.18-2.28, src/os/linux_ipcsocket.cc 2.30",
        samples=("gpu:8:8 [0] misc/ipcsocket.cc:120 NCCL WARN UDS: Sending data over socket /tmp/nccl-socket-1-a1b2 failed : Connection refused (111)",),
        priority=65,
    ),
    Signature(
        id="nccl.p2p.duplicate_gpu",
        patterns=(
            r"Duplicate GPU detected : rank \d+ and rank \d+ both on CUDA device",
            r"Multiple ranks detected using the same GPU on this node",
            r"Multiple Ranks are using the same GPU/Partition",
        ),
        extract=r"rank (?P<rank_a>\d+) and rank (?P<rank_b>\d+) both on CUDA device (?P<bus_id>\S+)",
        cause="device_ordinal",
        role="fault",
        confidence="high",
        title="Two ranks on the same GPU",
        fix=(
            "Two ranks use one GPU: each rank must select its own device (torch.cuda.set_device("
            "local_rank) before init_process_group), and CUDA_VISIBLE_DEVICES must not give every "
            "rank the same single GPU.\n$ echo $CUDA_VISIBLE_DEVICES $LOCAL_RANK; nvidia-smi -L"
        ),
        origin=("NCCL src/init.cc `Duplicate GPU detected : rank %d and rank %d both on CUDA device %x` "
                "2.5-2.29 (%lx from 2.11), graph/topo.cc `Multiple ranks detected using the same GPU` "
                "2.30.3-2.30.4, init.cc `Multiple Ranks are using the same GPU/Partition` 2.30.7"),
        samples=(
            "gpu:2:2 [0] graph/topo.cc:800 NCCL WARN Multiple ranks detected using the same GPU on this node. Set NCCL_MULTI_RANK_GPU_ENABLE=1 to enable this configuration.",
            "gpu:2:2 [1] init.cc:573 NCCL WARN Duplicate GPU detected : rank 1 and rank 0 both on CUDA device 83000",
            "[rank1]:Multiple Ranks are using the same GPU/Partition. Set NCCL_MULTI_RANK_GPU_ENABLE=1 to enable this configuration.",
        ),
        priority=90,
    ),
    Signature(
        id="nccl.p2p.buffer_wrong_device",
        patterns=(r"allocated on device \d+ mismatchs with NCCL device \d+",),
        extract=r": (?P<buffer>\S+) allocated on device (?P<buf_dev>\d+) mismatchs with NCCL device (?P<nccl_dev>\d+)",
        cause="device_ordinal",
        role="fault",
        confidence="high",
        title="Tensor on a different GPU than the communicator",
        fix="The {buffer} buffer lives on GPU {buf_dev} but the communicator uses GPU {nccl_dev}: set the current device per rank before creating tensors and the process group.",
        origin="NCCL src/misc/argcheck.cc 2.4-2.30",
        samples=("gpu:3:3 [1] misc/argcheck.cc:39 NCCL WARN AllReduce : sendbuff allocated on device 0 mismatchs with NCCL device 1",),
        priority=85,
    ),
    # ---------------------------------------------------------------- NVLS / multicast / MNNVL / IMEX
    Signature(
        id="nccl.nvls.bind_failed",
        patterns=(r"Failed to bind NVLink SHARP \(NVLS\) Multicast memory",),
        extract=r"of size (?P<size>\d+) : CUDA error (?P<code>\d+) '(?P<err>[^']*)'",
        cause="hardware_fault",
        role="fault",
        confidence="medium",
        title="NVLS multicast bind failed (Fabric Manager / NVSwitch problem)",
        fix=(
            "Binding NVLink SHARP multicast memory failed (CUDA error {code} '{err}'). NCCL says this is "
            "usually a system or configuration error in the Fabric Manager or NVSwitches (cause "
            "recorded as hardware_fault: the NVSwitch fabric). Check the fabric, or disable NVLS:\n"
            "$ systemctl status nvidia-fabricmanager; nvidia-smi -q | grep -A3 -i fabric\n"
            "$ export NCCL_NVLS_ENABLE=0"
        ),
        origin="NCCL src/transport/nvls.cc 2.28-2.30; cause hardware_fault because NCCL's own text blames the Fabric Manager or NVSwitches (the NVLink fabric), not the application",
        samples=("gpu:1:1 [0] transport/nvls.cc:208 NCCL WARN Failed to bind NVLink SHARP (NVLS) Multicast memory of size 1073741824 : CUDA error 2 'out of memory'.",),
        priority=82,
    ),
    # Before 2.28 the same multicast calls (cuMulticastCreate/AddDevice/BindMem, the handle import,
    # cuMemMap of the multicast buffer) failed through CUCHECK, which says only `Cuda failure`: the
    # file is what ties the line to NVLS. The CUDA text alone reads as a generic API error.
    Signature(
        id="nccl.nvls.cuda_failure",
        patterns=(r"nvls\.cc:\d+(?: \(\w+\))? NCCL WARN Cuda failure ",),
        extract=r"Cuda failure (?:(?P<code>\d+) )?'(?P<err>[^']*)'",
        cause="other",
        role="fault",
        confidence="medium",
        title="NVLS multicast setup failed in a CUDA call (NVSwitch / Fabric Manager state)",
        fix=(
            "A CUDA driver call of NCCL's NVLink SHARP (NVLS) transport failed ('{err}'): creating, joining, "
            "binding or mapping the multicast object. On NVSwitch systems this is usually the Fabric Manager or "
            "NVSwitch state (Fabric Manager restarted while processes held GPU resources, a driver / Fabric "
            "Manager version skew), in a VM or container multicast may be unavailable; NVLS buffers are also "
            "large. Check the fabric (a reboot of the node usually clears it), or run without NVLS:\n"
            "$ systemctl status nvidia-fabricmanager; nvidia-smi -q | grep -A3 -i fabric\n"
            "$ export NCCL_NVLS_ENABLE=0"
        ),
        origin=("NCCL src/transport/nvls.cc CUCHECK (src/include/cudawrap.h `Cuda failure '%s'` 2.17-2.18, "
                "`Cuda failure %d '%s'` 2.19-2.30, location `file:line (func)` 2.30) around cuMulticastCreate, "
                "cuMulticastAddDevice, cuMemImportFromShareableHandle, cuMulticastBindMem, cuMemMap; 2.28+ word the "
                "bind failure themselves (nccl.nvls.bind_failed)"),
        samples=(
            "gpu-a:2193:2261 [3] transport/nvls.cc:93 NCCL WARN Cuda failure 'operation not supported'",
            "gpu-b:1:2 [0] transport/nvls.cc:60 (nvlsGroupCreate) NCCL WARN Cuda failure 801 'operation not supported'",
            "gpu-c:4410:4470 [5] transport/nvls.cc:114 NCCL WARN Cuda failure 1 'invalid argument'",
        ),
        priority=80,
    ),
    Signature(
        id="nccl.nvls.same_device",
        patterns=(r"NCCL_NVLS_ENABLE has been set to \S+ and communicator has multiple ranks using the same NVML device",),
        cause="device_ordinal",
        role="fault",
        confidence="medium",
        title="NVLS forced on while several ranks share a GPU",
        fix="Several ranks share one GPU, which NVLS cannot handle; give each rank its own GPU or unset NCCL_NVLS_ENABLE.",
        origin="NCCL src/transport/nvls.cc 2.30",
        samples=('NCCL_NVLS_ENABLE has been set to "1" and communicator has multiple ranks using the same NVML device.',),
        priority=75,
    ),
    Signature(
        id="nccl.nvls.multicast_unavailable",
        patterns=(
            r"Multicast support requested for team but none available on system",
            r"Multimem pointer requested but system does not support multimem",
        ),
        cause="other",
        role="fault",
        confidence="medium",
        title="NVLink multicast requested but unavailable",
        fix="The application asked for NVLS/multimem but this system has none (no NVSwitch, Fabric Manager down, or NVLS disabled).\n$ nvidia-smi -q | grep -i -A2 fabric",
        origin="NCCL src/dev_runtime.cc 2.28-2.30",
        samples=(
            "Multimem pointer requested but system does not support multimem.","Multicast support requested for team but none available on system.",),
        priority=65,
    ),
    Signature(
        id="nccl.nvls.support_info",
        patterns=(r"NVLS multicast support is (?:not )?available on dev \d+",),
        cause=None,
        role="context",
        confidence="high",
        title="NVLS multicast availability",
        fix="Whether NVLink SHARP (NVLS) is available on this GPU.",
        origin="NCCL src/transport/nvls.cc INFO 2.17-2.30",
        samples=("gpu:1:1 [0] NCCL INFO NVLS multicast support is not available on dev 0",),
        priority=30,
    ),
    Signature(
        id="nccl.mnnvl.imex",
        patterns=(
            r"MNNVL \(cliqueSize \d+\) is available but not (?:supported|working) on this system",
            r"MNNVL is not supported on this system",
        ),
        cause="other",
        role="fault",
        confidence="high",
        title="Multi-node NVLink unusable: IMEX channel/daemon not configured",
        fix=(
            "The GPUs are in a multi-node NVLink clique but cross-node memory sharing does not work: "
            "the IMEX daemon or the IMEX channel device is missing (a host/container configuration "
            "issue, not failed hardware).\n$ nvidia-imex-ctl -N; ls -la /dev/nvidia-caps-imex-channels\n"
            "$ export NCCL_MNNVL_ENABLE=0   # to run without MNNVL"
        ),
        origin="NCCL src/init.cc 2.21-2.23, src/mnnvl.cc 2.26-2.30; cause other (not hardware_fault): the text points at IMEX daemon/channel configuration, a host setup issue",
        samples=(
            "gpu:1:1 [0] init.cc:1400 NCCL WARN MNNVL is not supported on this system","gpu:1:1 [0] mnnvl.cc:80 NCCL WARN MNNVL (cliqueSize 72) is available but not working on this system. Check the IMEX channel configuration (/dev/nvidia-caps-imex-channels). Set NCCL_MNNVL_ENABLE=0 to ignore this issue.",),
        priority=80,
    ),
    Signature(
        id="nccl.mem.fabric_handle",
        patterns=(
            r"MemManager: cuMemExportToShareableHandle \(FABRIC\) failed",
            r"MemManager: FABRIC handle not valid",
            r"MemManager: cuMemImportFromShareableHandle failed",
        ),
        cause="other",
        role="fault",
        confidence="medium",
        title="cuMem FABRIC handle export/import failed (IMEX / multi-node NVLink)",
        fix="FABRIC memory handles need a working IMEX setup; check the IMEX daemon and channel devices:\n$ nvidia-imex-ctl -N; ls /dev/nvidia-caps-imex-channels",
        origin="NCCL src/mem_manager.cc 2.30",
        samples=(
            "MemManager: FABRIC handle not valid for entry ptr=0x7f2200000000",
            "MemManager: cuMemImportFromShareableHandle failed for ptr=0x7f2200000000 (curet=1)","MemManager: cuMemExportToShareableHandle (FABRIC) failed for ptr=0x7f2200000000",),
        priority=65,
    ),
    # ---------------------------------------------------------------- NVML
    Signature(
        id="nccl.nvml.driver_library_mismatch",
        patterns=(r"\(\S*\) failed: Driver/library version mismatch", r"NVML failure 'Driver/library version mismatch'"),
        cause="version_mismatch",
        role="fault",
        confidence="high",
        title="NVML: kernel driver and user-space library versions differ",
        fix="The loaded kernel module and libnvidia-ml.so differ (driver upgraded without reboot, or a container with another driver's libraries). Reboot the node or reload the driver:\n$ cat /proc/driver/nvidia/version; nvidia-smi",
        origin="NCCL src/misc/nvmlwrap.cc `%s() failed: %s` 2.4-2.30, include/nvmlwrap.h `NVML failure '%s'` 2.4-2.11; NVML_ERROR_LIB_RM_VERSION_MISMATCH",
        samples=(
            "gpu:1:1 [0] include/nvmlwrap.h:26 NCCL WARN NVML failure 'Driver/library version mismatch'","gpu:1:1 [0] misc/nvmlwrap.cc:104 NCCL WARN nvmlInit_v2() failed: Driver/library version mismatch",),
        priority=85,
    ),
    Signature(
        id="nccl.nvml.gpu_lost",
        patterns=(r"\(\S*\) failed: GPU is lost", r"NVML failure 'GPU is lost'"),
        cause="hardware_fault",
        role="fault",
        confidence="high",
        title="NVML: GPU is lost (fell off the bus)",
        fix="The GPU stopped responding (Xid 79 / fallen off the bus). Drain the node:\n$ dmesg -T | grep -iE 'xid|fallen off'\n$ nvidia-smi -q | head",
        origin="NCCL src/misc/nvmlwrap.cc 2.4-2.30; NVML_ERROR_GPU_IS_LOST",
        samples=(
            "NVML failure 'GPU is lost'","nvmlDeviceGetHandleByIndex(3) failed: GPU is lost",),
        priority=90,
    ),
    Signature(
        id="nccl.nvml.init_failed",
        patterns=(
            r"nvmlInit(?:_v2)?\(\) failed: ",
            r"nvmlDeviceGetCount(?:_v2)?\(\) failed: ",
            r"Failed to open libnvidia-ml\.so",
        ),
        extract=r"failed: (?P<err>.+?)\s*$",
        cause="version_mismatch",
        role="fault",
        confidence="medium",
        title="NVML could not be initialized (driver missing or mismatched)",
        fix="NCCL could not load or initialize NVML ({err}): libnvidia-ml.so is missing in the container or does not match the driver.\n$ nvidia-smi; ldconfig -p | grep nvidia-ml",
        origin="NCCL src/misc/nvmlwrap.cc 2.4-2.30, src/os/linux.cc 2.30",
        samples=(
            "gpu:1:1 [0] misc/nvmlwrap.cc:104 NCCL WARN nvmlInit_v2() failed: Unknown Error",
            "nvmlDeviceGetCount_v2() failed: Insufficient Permissions","gpu:1:1 [0] misc/nvmlwrap.cc:63 NCCL WARN Failed to open libnvidia-ml.so.1",),
        priority=70,
    ),
    Signature(
        id="nccl.nvml.call_failed",
        patterns=(r"nvmlDevice\w+\([^)]*\) failed: ", r"NVML failure '"),
        extract=r"(?P<call>nvml\w+)\([^)]*\) failed: (?P<err>.+?)\s*$",
        cause="hardware_fault",
        role="fault",
        confidence="low",
        title="NVML query failed inside NCCL",
        fix="An NVML query ({call}) failed with '{err}'. 'Unknown Error' or 'GPU is lost' point at the GPU; 'Not Supported' is usually benign.\n$ nvidia-smi -q -i {device}",
        origin="NCCL src/misc/nvmlwrap.cc 2.4-2.30, src/include/nvmlwrap.h 2.4-2.11",
        samples=(
            "NVML failure 'Unknown Error'","nvmlDeviceGetHandleByPciBusId() failed: Unknown Error ",),
        priority=55,
    ),
)

_NETPLUGIN: tuple[Signature, ...] = (
    # ---------------------------------------------------------------- NET selection and plugins
    Signature(
        id="nccl.net.network_not_found",
        patterns=(r"Error: network \S+ not found", r"Failed to initialize any NET plugin"),
        extract=r"network (?P<net>\S+) not found",
        cause="network",
        role="fault",
        confidence="high",
        title="Requested network transport not available (NCCL_NET / plugin failed to load)",
        fix=(
            "NCCL_NET asks for '{net}' but no such network initialized: the IB devices are unusable, or "
            "the network plugin (e.g. aws-ofi-nccl, nccl-rdma-sharp) failed to load. Run with "
            "NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET to see the plugin load error.\n"
            "$ env | grep -E 'NCCL_NET|LD_LIBRARY_PATH'; ls $LD_LIBRARY_PATH | grep nccl-net"
        ),
        origin="NCCL `Error: network %s not found.` 2.10-2.26 (src/init.cc, later src/net.cc, src/plugin/net.cc); `Failed to initialize any NET plugin` src/plugin/net.cc 2.27-2.30",
        samples=(
            "[2026-05-05 06:16:47] node-01:189884:189884 [3] plugin/net.cc:334 NCCL WARN Failed to initialize any NET plugin","gpu:1:1 [0] init.cc:232 NCCL WARN Error: network IB not found.",),
        priority=85,
    ),
    Signature(
        id="nccl.net.plugin_load_error",
        patterns=(r"(?:NET|TUNER|PROFILER|GIN|RMA|ENV)/Plugin ?:.*(?:undefined symbol|wrong ELF class|version `\S+' not found|cannot open shared object file: Permission denied|file too short)",),
        cause="version_mismatch",
        role="context",
        confidence="low",
        title="NCCL plugin present but failed to load (built for another NCCL/CUDA/libfabric)",
        fix="A plugin library exists but could not be loaded; NCCL falls back to its internal implementation (e.g. TCP sockets instead of EFA/SHARP). Rebuild/install the plugin for this NCCL and CUDA version.",
        origin="NCCL src/net.cc / plugin/plugin_open.cc INFO `NET/Plugin : Plugin load returned %d : %s` 2.7-2.21, `<TYPE>/Plugin: %s` 2.23-2.30",
        samples=("gpu:1:1 [0] NCCL INFO NET/Plugin: Plugin load returned 2 : /opt/aws-ofi-nccl/lib/libnccl-net.so: undefined symbol: fi_getinfo : when loading libnccl-net.so",),
        priority=45,
    ),
    Signature(
        id="nccl.net.plugin_not_found",
        patterns=(
            r"(?:NET|TUNER|PROFILER|GIN|RMA|ENV)/Plugin ?: (?:No plugin found|Could not find|Plugin load returned|Most recent plugin load returned|dlerror=|Failed to find \w+ symbol|failed to find \w+)",
            r"(?:NET|TUNER|PROFILER|GIN|RMA|ENV)/Plugin: \S+: cannot open shared object file",
        ),
        cause=None,
        role="harmless",
        confidence="high",
        title="No external NCCL plugin (internal implementation used)",
        fix="No external plugin is installed, so NCCL uses its built-in network/tuner/profiler. Harmless unless a plugin (aws-ofi-nccl, SHARP) was expected on this cluster.",
        origin="NCCL src/net.cc, src/plugin/* INFO 2.7-2.30",
        samples=(
            "gpu:1:1 [0] NCCL INFO NET/Plugin: libnccl-net-ofi.so: cannot open shared object file: No such file or directory",
            "gpu:5359:5359 [0] NCCL INFO NET/Plugin : No plugin found (libnccl-net.so).",
            "gpu:1:1 [0] NCCL INFO PROFILER/Plugin: Could not find: libnccl-profiler.so.",
            "gpu:1:1 [0] NCCL INFO NET/Plugin : Plugin load returned 2 : libnccl-net.so: cannot open shared object file: No such file or directory.",
        ),
        priority=35,
    ),
    Signature(
        id="nccl.net.plugin_too_old",
        patterns=(r"NET/Plugin: Failed to find nccl(?:Coll)?NetPlugin symbol \(>= v\d+\)\. \S+ symbols v\d+ and lower are not supported",),
        cause="version_mismatch",
        role="context",
        confidence="medium",
        title="Network plugin too old for this NCCL (ignored, internal network used)",
        fix="The installed network plugin only exports interfaces this NCCL no longer supports, so it is ignored (e.g. EFA/SHARP silently replaced by TCP sockets). Install a plugin release that matches this NCCL.",
        origin="NCCL src/net.cc 2.19-2.23 INFO",
        samples=("NET/Plugin: Failed to find ncclNetPlugin symbol (>= v5). ncclNetPlugin symbols v4 and lower are not supported.",),
        priority=50,
    ),
    Signature(
        id="nccl.net.plugin_loaded",
        patterns=(
            r"NET/Plugin ?: Loaded (?:net|coll|collnet) plugin \S+",
            r"Initialized NET plugin \S+",
            r"Assigned NET plugin \S+ to comm",
        ),
        extract=r"(?:plugin|NET plugin) (?P<plugin>\S+)",
        cause=None,
        role="context",
        confidence="high",
        title="External network plugin loaded",
        fix="NCCL uses the network plugin {plugin}.",
        origin="NCCL src/net.cc / plugin/net.cc INFO 2.14-2.30",
        samples=(
            "gpu:1:1 [0] NCCL INFO Initialized NET plugin IB",
            "gpu:1:1 [0] NCCL INFO Assigned NET plugin IB to comm","gpu:1:1 [0] NCCL INFO NET/Plugin: Loaded net plugin AWS Libfabric (v6)",),
        priority=30,
    ),
    Signature(
        id="nccl.net.using_network_socket",
        patterns=(r"Using network Socket",),
        cause="network",
        role="context",
        confidence="low",
        title="NCCL uses TCP sockets for inter-node traffic",
        fix="Inter-node traffic goes over TCP sockets. Fine on Ethernet-only clusters; on IB/RoCE/EFA clusters it means the fast network was not found (see `NET/IB : No device found` or plugin load errors) and jobs will be slow or time out.\n$ ibv_devinfo; env | grep NCCL_IB_DISABLE",
        origin="NCCL src/init.cc INFO `Using network %s` 2.6-2.30 (builtin name \"Socket\")",
        samples=("gpu:1:1 [0] NCCL INFO Using network Socket",),
        priority=35,
    ),
    Signature(
        id="nccl.net.using_network",
        patterns=(r"NCCL INFO Using network \S+", r"^Using network \S+"),
        extract=r"Using network (?P<net>.+?)\s*$",
        cause=None,
        role="context",
        confidence="high",
        title="Network transport in use",
        fix="NCCL uses the {net} network.",
        origin="NCCL src/init.cc INFO `Using network %s` 2.6-2.30",
        samples=(
            "Using network Socket","gpu:1:1 [0] NCCL INFO Using network IB", "gpu:1:1 [0] NCCL INFO Using network AWS Libfabric"),
        priority=30,
    ),
    Signature(
        id="nccl.net.device_unpack_incompatible",
        patterns=(r"NCCL_DEVICE_UNPACK plugin has incompatible version",),
        cause=None,
        role="harmless",
        confidence="medium",
        title="Device-unpack plugin version incompatible (not used)",
        fix="The device-unpack (GPUDirect TCPX) plugin does not match this NCCL and is not used.",
        origin="NCCL src/net.cc 2.21, src/plugin/net.cc 2.22-2.30",
        samples=("NCCL_DEVICE_UNPACK plugin has incompatible version 6, this NCCL build is compatible with 7, not using it",),
        priority=40,
    ),
    Signature(
        id="nccl.net.mixed_device_counts",
        patterns=(r"Detected mixed local (?:Net|CollNet) device counts across ranks",),
        extract=r"\(min (?P<min>\d+), max (?P<max>\d+)\)",
        cause="network",
        role="fault",
        confidence="medium",
        title="Nodes expose different numbers of NICs (one node missing a NIC?)",
        fix="Some ranks see {min} network devices, others {max}: a NIC is down or missing on some node, or NCCL_IB_HCA differs. Compare `ibv_devinfo` across nodes and drain the odd one.",
        origin="NCCL src/init.cc 2.30",
        samples=("Detected mixed local Net device counts across ranks (min 7, max 8). Set NCCL_IGNORE_NET_MISMATCH=1 to ignore.",),
        priority=75,
    ),
    Signature(
        id="nccl.net.no_transport",
        patterns=(
            r"No transport found for rank \d+",
            r"No transport found !",
            r"Rank \d+ has no transport for \S+ peer \d+ on channel",
            r"\[\d+\] Error no transport for \S+ peer \d+",
            r"Error : Could not find transport to connect next group",
            r"Error : Network returned 0 device",
        ),
        cause="network",
        role="fault",
        confidence="medium",
        title="No transport can connect two ranks",
        fix="NCCL found no way to reach a peer: across nodes no network initialized (IB and sockets both unusable), or locally P2P and SHM are both disabled. Check NCCL_*_DISABLE settings and the network:\n$ env | grep -E 'NCCL_(P2P|SHM|IB|NET)'",
        origin="NCCL src/init.cc / src/transport.cc 2.4-2.30, src/proxy.cc 2.7-2.30, src/misc/rings.cc and src/transport/net.cc 2.4",
        samples=(
            "No transport found !",
            "Rank 3 has no transport for send peer 9 on channel 0/1",
            "[3] Error no transport for recv peer 9 on channel 0",
            "Error : Could not find transport to connect next group",
            "Error : Network returned 0 device","No transport found for rank 0[1b000] -> rank 8[1b000]",),
        priority=70,
    ),
    Signature(
        id="nccl.net.collnet_fallback",
        patterns=(
            r"Cannot initialize CollNet, using",
            r"CollNet is not supported or fails to initialize, ignoring NCCL_ALGO=COLLNET",
        ),
        cause=None,
        role="harmless",
        confidence="high",
        title="CollNet (SHARP) unavailable, point-to-point network used",
        fix="CollNet/SHARP could not start; NCCL continues with the normal network. Harmless unless SHARP was expected.",
        origin="NCCL src/init.cc 2.7, src/transport.cc 2.11-2.30, src/graph/tuning.cc 2.11-2.18",
        samples=(
            "CollNet is not supported or fails to initialize, ignoring NCCL_ALGO=COLLNET","Cannot initialize CollNet, using point-to-point network instead",),
        priority=40,
    ),
    # ---------------------------------------------------------------- nccl-rdma-sharp-plugins (SHARP, UCX)
    Signature(
        id="nccl.sharp.error",
        patterns=(
            r"SHARP coll init error",
            r"SHARP group create: ",
            r"SHARP (?:allreduce|Allgather|regmr|deregmr) failed",
            r"sharp_coll_caps_query failed",
            r"SHARP : unable to allocate request",
        ),
        cause="network",
        role="fault",
        confidence="medium",
        title="SHARP (in-network reduction) plugin error",
        fix="The SHARP CollNet plugin failed (SHARP aggregation manager unreachable, no SHARP resources, or a switch issue). Check the SHARP daemon/AM or run without CollNet:\n$ export NCCL_COLLNET_ENABLE=0\n$ sharp_hello   # if the SHARP tools are installed",
        origin="Mellanox/nccl-rdma-sharp-plugins src/sharp_plugin.c (tags v1.x-v2.1.0)",
        samples=(
            "SHARP group create: Group creation failed(-8)",
            "SHARP allreduce failed",
            "sharp_coll_caps_query failed : Failed to connect(-53)",
            "SHARP : unable to allocate request","gpu:1:1 [0] sharp_plugin.c:300 NCCL WARN NET/IB : SHARP coll init error: Cannot connect to SHARPD(-53)",),
        priority=70,
    ),
    Signature(
        id="nccl.ucx.error",
        patterns=(
            r"Failed: UCX error \S+:\d+",
            r"NET/UCX(?:_RMA)?: ",
            r"ucx_(?:isend|irecv|iflush|flush): unable to",
            r"Failed to (?:create UCT iface|open iface for tl_name|create worker for listener)",
            r"Cannot use cuda/gdr transports as part of specified UCX_TLS",
        ),
        cause="network",
        role="fault",
        confidence="medium",
        title="UCX network plugin error",
        fix="The UCX-based NCCL network plugin failed (transport selection or a send/recv error). Check UCX_TLS / UCX_NET_DEVICES and the devices:\n$ ucx_info -d | grep -E 'Transport|Device'\n$ env | grep ^UCX_",
        origin="Mellanox/nccl-rdma-sharp-plugins src/ucx_plugin.c, src/ucx_rma_plugin.c, src/ucx_uct_*.c (tags v1.x-v2.1.0)",
        samples=(
            "NET/UCX: unable to allocate NCCL request",
            "ucx_isend: unable to send message (Endpoint timeout)",
            "Failed to create UCT iface for worker: dev=1",
            "Cannot use cuda/gdr transports as part of specified UCX_TLS","gpu:1:1 [0] ucx_plugin.c:700 NCCL WARN Failed: UCX error ucx_plugin.c:700 '-6' Input/output error",),
        priority=65,
    ),
    # ---------------------------------------------------------------- aws-ofi-nccl (NET/OFI)
    Signature(
        id="nccl.ofi.request_error",
        patterns=(
            r"NET/OFI Request \S+ (?:\(\S+\) )?completed with error",
            r"NET/OFI (?:Remote write|rx buffer recv) completed with error",
            r"NET/OFI Fatal: rx buffer recv completed with error",
        ),
        extract=r"(?:strerror: |Error: (?:\d+ \()?)(?P<err>[^,)]+)",
        cause="network",
        role="fault",
        confidence="high",
        title="Libfabric/EFA request completed with error",
        fix=(
            "An EFA/libfabric transfer failed ({err}). Check the EFA devices and the security group "
            "(EFA needs all traffic allowed to itself) and whether the peer was alive:\n"
            "$ fi_info -p efa; cat /sys/class/infiniband/*/ports/1/hw_counters/* | head"
        ),
        origin="aws-ofi-nccl `NET/OFI Request %p completed with error...` v1.3.0-v1.21.1 (src/nccl_ofi_net.c, later include/nccl_ofi_platform.h, src/platform-aws.cpp, src/nccl_ofi_rdma.cpp); NCCL_OFI_WARN adds the `NET/OFI ` prefix (v1.0.0+)",
        samples=(
            "NET/OFI Remote write completed with error. RC: 5. Flags: 0. Error: 5 (Input/output error). Completed length: 0",
            "[rank6]:NET/OFI Fatal: rx buffer recv completed with error",
            "gpu:1:9 [0] nccl_net_ofi_rdma.cpp:1353 NCCL WARN NET/OFI Request 0x7f1f0c0a1230 completed with error. RC: 21. Flags: 0. Error: 5 (Input/output error). Completed length: 0",
            "[rank3]:NET/OFI Request 0x7f2a (send) completed with error: err: 113, flags: 0, prov_errno: 4123, strerror: No route to host, len: 0",
        ),
        priority=80,
    ),
    Signature(
        id="nccl.ofi.init_failed",
        patterns=(
            r"NET/OFI (?:Couldn't open a fabric provider|OFI fi_getinfo\(\) call failed|Unable to find a protocol that worked)",
            r"NET/OFI Couldn't (?:create (?:fabric|domain|completion queue)|open (?:a fabric access domain|AV|CQ)|allocate endpoint|enable endpoint|bind EP-\w+)",
            r"NET/OFI Could not create Libfabric endpoint",
        ),
        cause="network",
        role="fault",
        confidence="high",
        title="Libfabric (EFA) provider could not be opened",
        fix="aws-ofi-nccl could not open the libfabric provider/endpoint: EFA devices missing in the container, wrong FI_PROVIDER, or libfabric too old.\n$ fi_info -p efa\n$ ls /dev/infiniband; env | grep -E '^FI_|NCCL_NET'",
        origin="aws-ofi-nccl `Couldn't open a fabric provider` v1.0.0-v1.21.1, `OFI fi_getinfo() call failed` v1.9.0-v1.21.1, `Unable to find a protocol that worked` v1.13.0-v1.21.1 (src/nccl_ofi_net.c[pp], nccl_ofi_rdma.cpp, nccl_ofi_sendrecv.cpp, nccl_ofi_ofiutils.cpp)",
        samples=(
            "NET/OFI Couldn't open a fabric access domain. RC: -61, ERROR: No data available",
            "NET/OFI Could not create Libfabric endpoint on rail 3","NET/OFI OFI fi_getinfo() call failed: No data available",),
        priority=80,
    ),
    Signature(
        id="nccl.ofi.cq_error",
        patterns=(r"NET/OFI Unable to (?:retrieve completion queue entries|read from fi_cq_readerr)",),
        cause="network",
        role="fault",
        confidence="medium",
        title="Libfabric completion queue read failed",
        fix="Reading the EFA completion queue failed; the endpoint is in error. Look for the request error before it and check the EFA devices:\n$ fi_info -p efa",
        origin="aws-ofi-nccl `Unable to retrieve completion queue entries` v1.0.0-v1.21.1 (src/nccl_ofi_net.c, later nccl_ofi_rdma.cpp / nccl_ofi_sendrecv.cpp)",
        samples=("NET/OFI Unable to retrieve completion queue entries. RC: -5, ERROR: Input/output error",),
        priority=70,
    ),
    Signature(
        id="nccl.ofi.gdr_unsupported",
        patterns=(
            r"NET/OFI GDR support reported to NCCL but then couldn't be configured",
            r"NET/OFI Network does not support (?:communication using )?CUDA buffers",
            r"NET/OFI Couldn't register memory region",
        ),
        cause="network",
        role="fault",
        confidence="medium",
        title="Libfabric cannot use GPU memory (GPUDirect RDMA / memory registration)",
        fix="aws-ofi-nccl could not register GPU memory with the provider: GPUDirect RDMA/dma-buf is not available (kernel module, instance type or libfabric version).\n$ fi_info -p efa -v | grep -i hmem",
        origin="aws-ofi-nccl `GDR support reported to NCCL but then couldn't be configured` v1.7.0-v1.21.1, src/nccl_ofi_net.c[pp], nccl_ofi_rdma.cpp",
        samples=(
            "NET/OFI Network does not support communication using CUDA buffers. Dev: 0",
            "NET/OFI Couldn't register memory region with regattr. RC: -14, ERROR: Bad address","NET/OFI GDR support reported to NCCL but then couldn't be configured on an endpoint.  Cannot continue.",),
        priority=70,
    ),
    Signature(
        id="nccl.ofi.libfabric_too_old",
        patterns=(r"NET/OFI EFA provider requires at least libfabric version",),
        cause="version_mismatch",
        role="fault",
        confidence="high",
        title="libfabric too old for the EFA provider",
        fix="Install a newer libfabric (EFA installer) matching aws-ofi-nccl:\n$ fi_info --version",
        origin="aws-ofi-nccl src/platform-aws.c[pp] v1.8.0-v1.21.1",
        samples=("NET/OFI EFA provider requires at least libfabric version 1.22.0.",),
        priority=80,
    ),
    Signature(
        id="nccl.ofi.provider_info",
        patterns=(r"NET/OFI Selected provider is \S+", r"NET/OFI Using Libfabric version \d+"),
        extract=r"(?:Selected provider is (?P<provider>[^,]+)|Libfabric version (?P<libfabric>\S+))",
        cause=None,
        role="context",
        confidence="high",
        title="Libfabric provider in use",
        fix="aws-ofi-nccl provider {provider}, libfabric {libfabric}.",
        origin="aws-ofi-nccl src/nccl_ofi_net.c[pp] INFO `Using Libfabric version` v1.8.0-v1.21.1, `Selected provider is %s, fabric is %s (found %d nics)` v1.14.0-v1.21.1",
        samples=(
            "gpu:1:1 [0] NCCL INFO NET/OFI Using Libfabric version 1.22","gpu:1:1 [0] NCCL INFO NET/OFI Selected provider is efa, fabric is efa (found 4 nics)",),
        priority=30,
    ),
    Signature(
        id="nccl.ofi.warn_generic",
        patterns=(r"NCCL WARN NET/OFI ",),
        cause="network",
        role="fault",
        confidence="low",
        title="aws-ofi-nccl (libfabric/EFA) plugin warning",
        fix="The libfabric network plugin reported an error; see its text and check the EFA devices:\n$ fi_info -p efa",
        origin="aws-ofi-nccl include/nccl_ofi_log.h NCCL_OFI_WARN `NET/OFI ` prefix v1.0.0-v1.21.1",
        samples=("gpu:1:9 [0] nccl_ofi_rdma.cpp:4410 NCCL WARN NET/OFI Unable to allocate flush buffer (12)",),
        priority=35,
    ),
)

_PROXY: tuple[Signature, ...] = (
    # ---------------------------------------------------------------- proxy thread
    Signature(
        id="nccl.proxy.execute_failed",
        patterns=(r"\[Proxy Service \d+\] Failed to execute operation \S+ from rank \d+, retcode \d+",),
        extract=r"Failed to execute operation (?P<op>\S+) from rank (?P<from_rank>\d+), retcode (?P<retcode>\d+)",
        cause="network",
        role="symptom",
        confidence="low",
        title="NCCL proxy failed an operation for a local rank",
        fix="The proxy thread failed {op} for rank {from_rank} with ncclResult_t {retcode} (2 system/network, 3 internal, 6 remote peer gone). The WARN before this line names the real error.",
        origin="NCCL src/proxy.cc 2.14-2.30",
        samples=(
            "gpu-a:4242:4300 [3] proxy.cc:1905 NCCL WARN [Proxy Service 3] Failed to execute operation Connect from rank 3, retcode 3",
            "[rank9]:gpu:1:2 [1] proxy.cc:1496 NCCL WARN [Proxy Service 9] Failed to execute operation Connect from rank 9, retcode 6",
        ),
        priority=55,
    ),
    Signature(
        id="nccl.proxy.progress_error",
        patterns=(r"\[Service thread\] Error encountered progressing operation=\S+, res=\d+, closing connection",),
        extract=r"operation=(?P<op>\S+), res=(?P<res>\d+)",
        cause="network",
        role="symptom",
        confidence="low",
        title="NCCL proxy service thread closed a connection after an error",
        fix="The proxy failed {op} (ncclResult_t {res}) and closed the connection; the preceding WARN names the cause.",
        origin="NCCL src/proxy.cc 2.18-2.30",
        samples=("[Service thread] Error encountered progressing operation=Connect, res=3, closing connection",),
        priority=50,
    ),
    Signature(
        id="nccl.proxy.local_rank_gone",
        patterns=(
            r"\[Service thread\] Could not receive type from localRank \d+",
            r"Socket recv failed while polling for opId=",
            r"Proxy Call to rank \d+ failed",
            r"ncclProxy(?:CallBlockingUDS|ClientGetFd|ClientQueryFdBlocking|ClientConvertFd) call to (?:tpRank|top parent rank) \d+",
        ),
        cause="rank_crash",
        role="symptom",
        confidence="low",
        title="Lost contact with a local rank's proxy (that process probably died)",
        fix="The connection to another local rank's proxy broke; that process most likely exited. Check the other ranks on this node for the first failure.",
        origin="NCCL src/proxy.cc 2.14-2.30",
        samples=(
            "Socket recv failed while polling for opId=0x7f3c0c0",
            "Proxy Call to rank 2 failed (Connect)",
            "[Service thread] Could not receive type from localRank 3, res=3, closed=1",
            "ncclProxyCallBlockingUDS call to tpRank 1(a1b2c3d4) failed : 2",
        ),
        priority=55,
    ),
    Signature(
        id="nccl.proxy.too_many_connections",
        patterns=(r"\[Proxy service\] Too many connections \(\d+ max\)",),
        cause="other",
        role="fault",
        confidence="medium",
        title="NCCL proxy connection limit reached (too many communicators)",
        fix="The proxy has reached its connection limit: the application creates too many communicators (e.g. one per step, never destroyed). Reuse or destroy communicators.",
        origin="NCCL src/proxy.cc 2.14-2.30",
        samples=("[Proxy service] Too many connections (16384 max)",),
        priority=65,
    ),
    Signature(
        id="nccl.proxy.internal",
        patterns=(
            r"Proxy append (?:mismatch|out of bounds?|on running operation)",
            r"(?:Active list|Free list|List) loop at element",
            r"Unable to post incomplete proxy op chain",
            r"Mismatched response size for opId=",
            r"Proxy response for opId=\S+ doesn't match any expected response",
            r"Attempting to dequeue (?:nonexistent async opId|null operation)",
            r"\[Proxy Service(?: UDS)?\] (?:Poll failed|Get listenSock fd fails|proxyDestroy failed)",
            r"\[Service thread\] Unknown command \d+ from localRank",
            r"Storing response for already completed opId=",
        ),
        cause="other",
        role="fault",
        confidence="low",
        title="NCCL proxy internal error",
        fix="An internal consistency check of NCCL's proxy failed (a bug, or a consequence of an earlier error). Look for a preceding error; otherwise upgrade NCCL.",
        origin="NCCL src/proxy.cc 2.11-2.30",
        samples=(
            "List loop at element 3-4",
            "Unable to post incomplete proxy op chain 0..3 (opCount 12)",
            "Mismatched response size for opId=0x7f00",
            "Proxy response for opId=0x7f00 doesn't match any expected response",
            "Attempting to dequeue null operation",
            "[Proxy Service] Poll failed: Interrupted system call",
            "[Service thread] Unknown command 9 from localRank 2",
            "Storing response for already completed opId=0x7f00","Proxy append out of bounds",),
        priority=40,
    ),
    Signature(
        id="nccl.proxy.comm_abort_state",
        patterns=(r"Comm \S+ is in abort state",),
        cause="collective_timeout_straggler",
        role="symptom",
        confidence="low",
        title="Communicator already aborted (proxy refuses work)",
        fix="The communicator was aborted (by the application's watchdog or after an error); this line follows that abort. Find why it was aborted.",
        origin="NCCL src/proxy.cc 2.18-2.30",
        samples=("Comm 0x55d5f1a3c2e0 is in abort state",),
        priority=45,
    ),
)

_TOPO: tuple[Signature, ...] = (
    # ---------------------------------------------------------------- topology / XML / graph
    Signature(
        id="nccl.topo.xml_file",
        patterns=(r"Could not open XML (?:topology|graph) file \S+", r"Unable to open \S+, not dumping topology"),
        extract=r"file (?P<file>\S+) : (?P<err>.+)$",
        cause="other",
        role="fault",
        confidence="high",
        title="NCCL topology/graph file cannot be opened (NCCL_TOPO_FILE / NCCL_GRAPH_FILE)",
        fix="The file named by NCCL_TOPO_FILE / NCCL_GRAPH_FILE / NCCL_TOPO_DUMP_FILE cannot be opened ({err}); fix the path or unset it (cloud images often set NCCL_TOPO_FILE for another instance type).\n$ env | grep -E 'NCCL_(TOPO|GRAPH)'",
        origin="NCCL src/graph/xml.cc 2.7-2.30",
        samples=(
            "Unable to open /shared/topo-dump.xml, not dumping topology.","gpu:1:1 [0] graph/xml.cc:600 NCCL WARN Could not open XML topology file /opt/microsoft/ndv4-topo.xml : No such file or directory",),
        priority=75,
    ),
    Signature(
        id="nccl.topo.xml_parse",
        patterns=(
            r"XML Parse(?: error)? ?: ",
            r"XML Mismatch : ",
            r"XML Import Channel : dev \d+ not found",
            r"XML Export Channel : rank \d+ not found",
            r"Attribute \S+ of node \S+ not found",
            r"KV Convert to str : could not find value",
        ),
        cause="other",
        role="fault",
        confidence="medium",
        title="Invalid NCCL topology/graph XML",
        fix="The topology or graph XML (NCCL_TOPO_FILE / NCCL_GRAPH_FILE, or one generated on another machine) is malformed or does not match this system. Remove the setting or regenerate it with NCCL_TOPO_DUMP_FILE on this machine.",
        origin="NCCL src/graph/xml.cc, src/graph/xml.h, src/graph/search.cc 2.7-2.30",
        samples=(
            "XML Mismatch : gpu / nic",
            "XML Export Channel : rank 12 not found.",
            "Attribute busid of node pci not found",
            "KV Convert to str : could not find value 9 in dictionary","XML Parse : Unexpected EOF", "XML Import Channel : dev 9 not found."),
        priority=60,
    ),
    Signature(
        id="nccl.topo.xml_version",
        patterns=(r"XML (?:Topology|Graph) has wrong version \d+, \d+ needed",),
        cause="version_mismatch",
        role="fault",
        confidence="medium",
        title="Topology/graph XML from another NCCL version",
        fix="NCCL_TOPO_FILE/NCCL_GRAPH_FILE was written for another NCCL version; regenerate it or unset it.",
        origin="NCCL src/graph/xml.cc 2.7-2.30",
        samples=("XML Topology has wrong version 2, 1 needed",),
        priority=70,
    ),
    Signature(
        id="nccl.topo.sysfs_missing",
        patterns=(
            r"Could not find real path of \S+",
            r"GetXmlFromCpu : could not find CPU numa ID",
            r"TopoFuseXmls : could not find CPU numa ID",
            r"Error : could not find CPU close to GPU \d+",
            r"getXmlFromCpu: Unknown CPU architecture",
        ),
        cause="other",
        role="fault",
        confidence="medium",
        title="Topology detection failed: /sys PCI/NUMA information missing (container or VM)",
        fix="NCCL reads the PCI and NUMA layout from /sys; inside some containers/VMs the path is hidden or fake. Mount /sys read-only into the container, or provide a topology file:\n$ ls -l /sys/class/pci_bus/; cat /sys/bus/pci/devices/*/numa_node | sort | uniq -c\n$ export NCCL_TOPO_FILE=<xml for this machine type>",
        origin="NCCL src/graph/xml.cc, src/graph/paths.cc, src/misc/topo.cc, src/transport/net_ib.cc, src/os/linux.cc 2.4-2.30",
        samples=(
            "GetXmlFromCpu : could not find CPU numa ID.",
            "TopoFuseXmls : could not find CPU numa ID.",
            "Error : could not find CPU close to GPU 3",
            "getXmlFromCpu: Unknown CPU architecture",
            "gpu:1:1 [0] misc/topo.cc:31 NCCL WARN Could not find real path of /sys/class/pci_bus/0000:00/../../0000:00:1e.0",
            "Could not find real path of mlx5_0 (/sys/class/infiniband/mlx5_0/device)",
        ),
        priority=60,
    ),
    Signature(
        id="nccl.topo.nic_unavailable",
        patterns=(
            r"Rank \d+ requires NIC \d+ but that NIC is not available for rank \d+",
            r"Could not find NIC for rank \d+ in NVLS graph",
            r"Could not find any local path from gpu \d+ to net",
            r"Could not find intermediate GPU between GPU rank \d+ and NIC",
            r"TOPO/NET : ",
            r"Specified fused NIC \S+ which has too many devices",
            r"Fusing NET devices from different NUMA domains is not supported",
        ),
        cause="network",
        role="fault",
        confidence="medium",
        title="Topology search could not place a NIC (nodes differ in NICs, or NIC fusion settings)",
        fix="NCCL's graph search needs a NIC that this node does not have or cannot reach: nodes have different NIC sets (a NIC down, NCCL_IB_HCA differs), or NCCL_NET_FORCE_MERGE / NIC fusion settings are wrong. Compare `ibv_devinfo` and `nvidia-smi topo -m` across nodes.",
        origin="NCCL src/graph/search.cc 2.14-2.30, src/graph/paths.cc 2.14-2.30, src/graph/topo.cc 2.26-2.30",
        samples=(
            "Could not find NIC for rank 5 in NVLS graph",
            "Could not find any local path from gpu 2 to net.",
            "Could not find intermediate GPU between GPU rank 1 and NIC 3",
            "TOPO/NET : Only matched 1 devices, 2 requested from mlx5_0+mlx5_1",
            "Specified fused NIC mlx5_0+mlx5_1+mlx5_2+mlx5_3+mlx5_4 which has too many devices (5). Max 4",
            "Fusing NET devices from different NUMA domains is not supported.","Rank 3 requires NIC 1 but that NIC is not available for rank 11",),
        priority=65,
    ),
    Signature(
        id="nccl.topo.search_failed",
        patterns=(
            r"Could not find (?:rev link for|gpu rank \d+|net id \S+|NET with id|node of type \d+ id|id \S+$|local GPU with rank)",
            r"No path computed to go from \S+ to \S+",
            r"Failed to find reverse path from remNode",
            r"Add (?:NVLink|PCI Link|C2c) error : could not find",
            r"Error : (?:tried to create too many nodes of type|too many Topo links|too many XML (?:sub)?nodes|XML parser is limited to|ran out of room to store found nodes)",
            r"ncclTopo\w+ could not find rank",
            r"Set CPU affinity : unable to find GPU/CPU for rank",
            r"localHostHash = \S+ not found in the list of system hostHashes",
            r"Internal error : tree already has",
        ),
        cause="other",
        role="fault",
        confidence="low",
        title="NCCL topology/graph search internal failure",
        fix="NCCL could not build its topology graph (unusual hardware layout, hidden /sys, or an NCCL bug). Try a newer NCCL, or dump and inspect the topology:\n$ NCCL_TOPO_DUMP_FILE=/tmp/topo.xml NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=GRAPH <job>",
        origin="NCCL src/graph/search.cc, paths.cc, topo.cc, topo.h, connect.cc, xml.h 2.7-2.30",
        samples=(
            "Failed to find reverse path from remNode 1/1b000 nlinks 2 to node 2/0",
            "Add NVLink error : could not find GPU 3f000",
            "Error : too many Topo links (max 128)",
            "ncclTopoRankToIndex could not find rank 9",
            "Set CPU affinity : unable to find GPU/CPU for rank 3",
            "localHostHash = 0x9a8b not found in the list of system hostHashes",
            "Internal error : tree already has 3 children (1 2 3)","No path computed to go from GPU/0 to NET/1", "Could not find gpu rank 5"),
        priority=45,
    ),
    Signature(
        id="nccl.topo.ring_inconsistent",
        patterns=(r"Error : ring \d+ does not (?:loop back to start|contain rank \d+)",),
        cause="version_mismatch",
        role="fault",
        confidence="low",
        title="Ranks computed inconsistent rings (NCCL versions or settings differ across ranks)",
        fix="The rings assembled from all ranks are inconsistent: ranks run different NCCL versions or different NCCL_* topology settings (NCCL_TOPO_FILE, NCCL_ALGO, NCCL_MIN/MAX_NCHANNELS). Make them identical on every node.",
        origin="NCCL src/graph/rings.cc, src/init.cc 2.4-2.30",
        samples=("Error : ring 2 does not loop back to start (5 != 0)",),
        priority=60,
    ),
    Signature(
        id="nccl.topo.no_algorithm",
        patterns=(r"(?:Error : no|No) algorithm/protocol available",),
        cause="other",
        role="fault",
        confidence="medium",
        title="No algorithm/protocol can run this collective (NCCL_ALGO/NCCL_PROTO too restrictive)",
        fix="NCCL has no usable algorithm/protocol for this operation: NCCL_ALGO / NCCL_PROTO exclude every option, or the datatype is unsupported here.\n$ env | grep -E 'NCCL_(ALGO|PROTO)'",
        origin="NCCL src/enqueue.cc 2.7-2.30",
        samples=("No algorithm/protocol available for function AllReduce with datatype ncclFloat8e4m3. NCCL_ALGO was set to RING.",),
        priority=70,
    ),
    Signature(
        id="nccl.topo.tuning_env_invalid",
        patterns=(
            r"Invalid \S+ \d+ \((?:must be a multiple of \d+|maximum \d+|minimum \d+)\)",
            r"Unrecognized (?:element|prefix) token \S+ when parsing",
            r"All entries except the first must have a prefix",
            r"NCCL_NET_MERGE_POLICY: unknown value",
        ),
        cause="other",
        role="fault",
        confidence="high",
        title="Invalid NCCL tuning environment value",
        fix="An NCCL_* tuning variable (NCCL_BUFFSIZE, NCCL_NTHREADS, NCCL_ALGO, NCCL_PROTO ...) has an invalid value; fix or unset it:\n$ env | grep ^NCCL_",
        origin="NCCL src/graph/tuning.cc 2.7-2.30, src/graph/topo.cc 2.30",
        samples=(
            "Invalid NCCL_BUFFSIZE 1000 (must be a multiple of 512)",
            "All entries except the first must have a prefix: \"ring\"",
            "NCCL_NET_MERGE_POLICY: unknown value 'FOO', defaulting to ALL",'Unrecognized element token "RINGX" when parsing "allreduce:ringx"',),
        priority=65,
    ),
    Signature(
        id="nccl.topo.channel_clamp",
        patterns=(
            r"User asked for a (?:minimum|maximum) of \d+ channels",
            r"NCCL_(?:MIN_NRINGS set to a value|CGA_CLUSTER_SIZE value \d+ is too big|WORK_FIFO_(?:DEPTH|BYTES)=\d+ is being ignored)",
            r"(?:min|max)CTAs \d+ is larger than",
            r"CollNet currently only supports up to \d+ GPUs per node",
            r"Could not find a path for pattern \d+, falling back to simple order",
            r"Could not create rings, falling back on simple ring",
            r"Unable to create thread context due to old driver, disabling",
            r"Profiler init failed with error \(\d+\)\. Continue without profiler",
            r"CC On, Multi-GPU CC Off",
        ),
        cause=None,
        role="harmless",
        confidence="high",
        title="NCCL adjusted a setting and continued",
        fix="NCCL clamped or ignored a setting (or a feature) and carried on; harmless unless that setting was important.",
        origin="NCCL src/graph/connect.cc, search.cc, init.cc, misc/rings.cc, proxy.cc, plugin/profiler.cc 2.4-2.30",
        samples=(
            "NCCL_WORK_FIFO_BYTES=1000 is being ignored because it is not a power of 2.",
            "maxCTAs 64 is larger than #channels upper limit 32, cap it to 32",
            "CollNet currently only supports up to 8 GPUs per node, disabling CollNet",
            "Could not find a path for pattern 4, falling back to simple order",
            "Could not create rings, falling back on simple ring",
            "Unable to create thread context due to old driver, disabling.",
            "Profiler init failed with error (3). Continue without profiler.",
            "CC On, Multi-GPU CC Off (No inter-GPU communication protection)","User asked for a minimum of 32 channels, limiting to 16",),
        priority=40,
    ),
)

_USAGE: tuple[Signature, ...] = (
    # ---------------------------------------------------------------- invalid arguments / usage
    Signature(
        id="nccl.init.invalid_rank",
        patterns=(
            r"Invalid rank requested : -?\d+/\d+",
            r"rank -?\d+ exceeds ndev=\d+",
            r"improper usage of ncclCommInitRank: nId = \d+, nranks=\d+",
        ),
        extract=r"(?:requested : (?P<req_rank>-?\d+)/(?P<nranks>\d+)|rank (?P<req_rank2>-?\d+) exceeds ndev=(?P<ndev>\d+))",
        cause="rendezvous_hang",
        role="fault",
        confidence="high",
        title="Rank outside the world size (RANK/WORLD_SIZE inconsistent)",
        fix="A rank number is not below the number of ranks: the launcher's RANK/WORLD_SIZE (or nnodes x nproc-per-node) disagree between nodes.\n$ env | grep -E '^(RANK|WORLD_SIZE|LOCAL_RANK|NODE_RANK)='",
        origin="NCCL src/init.cc 2.4-2.30",
        samples=(
            "rank 4 exceeds ndev=4",
            "improper usage of ncclCommInitRank: nId = 2, nranks=1","gpu:1:1 [0] init.cc:1560 NCCL WARN Invalid rank requested : 8/8",),
        priority=80,
    ),
    Signature(
        id="nccl.init.invalid_device",
        patterns=(r"Invalid device \d+ \(totalnDev=\d+\)", r"[Ii]nvalid device count \(?-?\d+\)? requested", r"Invalid device count requested : -?\d+"),
        cause="device_ordinal",
        role="fault",
        confidence="high",
        title="Invalid GPU index or count passed to NCCL",
        fix="A GPU index/count beyond the visible devices was passed to NCCL (ncclCommInitAll / CUDA_VISIBLE_DEVICES mismatch).\n$ echo $CUDA_VISIBLE_DEVICES; nvidia-smi -L",
        origin="NCCL src/init.cc 2.4-2.30",
        samples=(
            "invalid device count (0) requested",
            "Invalid device count requested : 0","Invalid device 4 (totalnDev=4)",),
        priority=80,
    ),
    Signature(
        id="nccl.usage.argcheck",
        patterns=(
            r"\S+ : \S+ argument is NULL",
            r"\S+ : invalid root -?\d+ \(root should be in the 0\.\.\d+ range\)",
            r"\S+ : invalid type -?\d+",
            r"\S+ : invalid reduction operation -?\d+",
            r"\S+ : reduction operation -?\d+ unknown to this communicator",
            r"\S+ : \S+ (?:\S+ )?is not a valid pointer",
            r"Trying to (?:send|recv) to self without a matching (?:recv|send)",
            r"peer -?\d+ is not within valid range of ranks \d+",
            r"Data type supplied to user-created ncclRedOp_t does not match type",
            r"ncclRedOpDestroy : ",
            r"symmetric registration check failed on rank \d+",
        ),
        cause="other",
        role="fault",
        confidence="high",
        title="Invalid argument to an NCCL call (application bug)",
        fix="The application passed an invalid argument to NCCL (NULL or host buffer, root out of range, unsupported datatype/op, unmatched send/recv to self). Fix the call site; PyTorch users: check tensor devices and dtypes.",
        origin="NCCL src/misc/argcheck.cc 2.4-2.30, src/enqueue.cc 2.11-2.30",
        samples=(
            "AllReduce : recvbuff argument is NULL",
            "AllReduce : invalid type 12",
            "Reduce : invalid reduction operation 9",
            "AllReduce : reduction operation 7 unknown to this communicator",
            "Trying to send to self without a matching recv",
            "Data type supplied to user-created ncclRedOp_t does not match type given to reduction operation",
            "ncclRedOpDestroy : operator unknown to this communicator.",
            "Coll AllReduce size 1048576 symmetric registration check failed on rank 3: sendReg 1 recvReg 0 mismatch with rank 0","gpu:1:1 [0] misc/argcheck.cc:30 NCCL WARN AllReduce : sendbuff 0x7ffd1a2b is not a valid pointer", "Broadcast : invalid root 8 (root should be in the 0..7 range)"),
        priority=65,
    ),
    Signature(
        id="nccl.usage.group_misuse",
        patterns=(
            r"ncclGroupEnd: not in a group call",
            r"Blocking and nonblocking communicators are not allowed in the same group",
            r"Either none or all communicators in a ncclGroup\(\) can be CUDA graph captured",
            r"Streams given to a communicator within a NCCL group must either be all uncaptured",
            r"mixing different streams within a group call is not supported",
            r"Too many (?:async operations in progress|aggregated operations)",
            r"Trying to launch too many (?:collectives|work elements)",
            r"Illegal to have some communicators in graph mode while others not",
            r"Stream is not being captured by the expected graph",
        ),
        cause="other",
        role="fault",
        confidence="high",
        title="NCCL group/stream usage error (application bug)",
        fix="The application misused ncclGroupStart/End or streams (mixing streams, graph capture on some comms only, too many ops in one group). Fix the call pattern.",
        origin="NCCL src/group.cc, src/enqueue.cc, src/misc/strongstream.cc 2.4-2.30",
        samples=(
            "Blocking and nonblocking communicators are not allowed in the same group.",
            "Either none or all communicators in a ncclGroup() can be CUDA graph captured.",
            "Streams given to a communicator within a NCCL group must either be all uncaptured or all captured by the same graph.",
            "Error : mixing different streams within a group call is not supported.",
            "Too many async operations in progress, max is 2048",
            "Trying to launch too many collectives",
            "Illegal to have some communicators in graph mode while others not",
            "Stream is not being captured by the expected graph.","ncclGroupEnd: not in a group call.",),
        priority=65,
    ),
    Signature(
        id="nccl.usage.config_uninitialized",
        patterns=(r"(?:ncclConfig_t|ncclSimInfo_t|ncclCommProperties_t|ncclDevCommRequirements_t) argument (?:not initialized|must be initialized)",),
        cause="version_mismatch",
        role="fault",
        confidence="medium",
        title="NCCL config struct not recognised (nccl.h and libnccl versions differ)",
        fix="NCCL did not recognise the magic/version of a config struct: the application was compiled against another nccl.h than the libnccl.so it loads (e.g. PyTorch built with one NCCL, LD_LIBRARY_PATH pointing to another), or it skipped NCCL_CONFIG_INITIALIZER.\n$ ldd $(python -c 'import torch,os;print(os.path.dirname(torch.__file__))')/lib/libtorch_cuda.so | grep nccl",
        origin="NCCL src/init.cc 2.14-2.30, src/group.cc 2.23-2.30, src/dev_runtime.cc 2.30",
        samples=("ncclConfig_t argument not initialized via NCCL_CONFIG_INITIALIZER",),
        priority=70,
    ),
    Signature(
        id="nccl.usage.config_invalid",
        patterns=(r"Invali[dg] config \S+(?: \S+)? attribute value", r"Invalid NCCL_COMM_BLOCKING value", r"splitShare \d+ is not a valid value"),
        cause="other",
        role="fault",
        confidence="high",
        title="Invalid ncclConfig_t attribute",
        fix="An ncclConfig_t field (or its NCCL_* override) has an invalid value; fix the configuration.",
        origin="NCCL src/init.cc 2.14-2.30",
        samples=(
            "Invalid NCCL_COMM_BLOCKING value 3",
            "splitShare 2 is not a valid value 0/1, set it to 0","Invalid config blocking attribute value -2",),
        priority=60,
    ),
    Signature(
        id="nccl.usage.comm_destroyed",
        patterns=(r"comm \S+ has already been destroyed", r"Error: corrupted comm object detected"),
        cause="other",
        role="fault",
        confidence="medium",
        title="Communicator used after destroy (or corrupted)",
        fix="The application used a communicator after ncclCommDestroy/Abort (or memory corruption overwrote it). Check teardown order (destroy_process_group while work is pending).",
        origin="NCCL src/init.cc 2.4-2.30, src/misc/argcheck.cc 2.21-2.30",
        samples=(
            "Error: corrupted comm object detected","comm 0x5571c2d0a0 has already been destroyed",),
        priority=60,
    ),
    Signature(
        id="nccl.usage.comm_in_error",
        patterns=(r"Attempt to use communicator before the previous operation returned ncclSuccess",),
        cause="rank_crash",
        role="symptom",
        confidence="low",
        title="Communicator used after an earlier error",
        fix="An earlier NCCL call on this communicator failed (often an async error after a peer died); this is a follow-up. Find that first error.",
        origin="NCCL src/init.cc 2.14-2.30",
        samples=("Attempt to use communicator before the previous operation returned ncclSuccess",),
        priority=45,
    ),
    Signature(
        id="nccl.usage.comm_revoked",
        patterns=(r"\S+: communicator was revoked",),
        cause="rank_crash",
        role="symptom",
        confidence="low",
        title="Communicator revoked by the application (fault-tolerance path)",
        fix="The application revoked this communicator (ncclCommRevoke), usually after detecting a failed rank; find that failure.",
        origin="NCCL src/enqueue.cc 2.28-2.30",
        samples=("ncclAllReduce: communicator was revoked",),
        priority=45,
    ),
    Signature(
        id="nccl.usage.async_error_set",
        patterns=(r"ncclCommSetAsyncError: error comm \S+ sets state \d+",),
        extract=r"sets state (?P<state>\d+)",
        cause="network",
        role="symptom",
        confidence="low",
        title="Communicator entered an asynchronous error state",
        fix="An asynchronous error (ncclResult_t {state}) was recorded on the communicator: 6 remote peer/network, 2 system, 1 CUDA. The WARN just before names it.",
        origin="NCCL src/init.cc 2.14-2.30",
        samples=("ncclCommSetAsyncError: error comm 0x55c9b0 sets state 6",),
        priority=40,
    ),
    Signature(
        id="nccl.usage.collective_mismatch",
        patterns=(
            r"Mismatched collective detected, please check your collective calls",
            r"Your program may be hanging, this may be caused by a collective mismatch",
        ),
        extract=r"around rank (?P<bad_rank>\d+)",
        cause="collective_timeout_straggler",
        role="fault",
        confidence="high",
        title="Collective mismatch between ranks",
        fix="NCCL detected that rank {bad_rank} and its neighbours issued different collectives. Compare the collective sequence of those ranks (NCCL_DEBUG_SUBSYS=COLL, TORCH_NCCL_DESYNC_DEBUG=1).",
        origin="NCCL src/init.cc 2.4 (checkDevErrors)",
        samples=(
            "Your program may be hanging, this may be caused by a collective mismatch around rank 2. Please check your collective calls at and around this rank.","Mismatched collective detected, please check your collective calls at and around rank 3. You can use NCCL_DEBUG=INFO and NCCL_DEBUG_SUBSYS=COLL to see the collective logs",),
        priority=85,
    ),
    Signature(
        id="nccl.init.local_ranks",
        patterns=(r"Failed to determine (?:local|intra (?:proc|node)?) ?ranks",),
        cause="other",
        role="fault",
        confidence="medium",
        title="NCCL could not work out which ranks share a host (host ids clash)",
        fix="Ranks on different hosts look like one host (containers with identical hostnames / boot ids) or ranks disagree on host grouping. Give each container a unique hostname or set NCCL_HOSTID per node.",
        origin="NCCL src/init.cc 2.4-2.30",
        samples=("Failed to determine local ranks rank 3 hostHash 9a8b7c pidHash 1234 localRank 3 localRanks 2 localRank0 0",),
        priority=60,
    ),
    Signature(
        id="nccl.init.split_mismatch",
        patterns=(
            r"Split shares resources, but parent comm netName \S+ is different from child comm netName",
            r"Comm config netName \(\S+\) does not match the parent",
            r"Child comms \(nRanks \d+\) fails to share parent comms",
            r"ncclCommGrow: ",
        ),
        cause="other",
        role="fault",
        confidence="medium",
        title="Communicator split/grow configuration inconsistent",
        fix="ncclCommSplit/ncclCommGrow was called with settings incompatible with the parent communicator; align the child's config with the parent.",
        origin="NCCL src/init.cc 2.18-2.30, src/plugin/net.cc 2.28-2.30, src/transport/coll_net.cc",
        samples=(
            "Split shares resources, but parent comm netName IB is different from child comm netName Socket",
            "Comm config netName (Socket) does not match the parent (IB)",
            "Child comms (nRanks 4) fails to share parent comms (nRanks 8) sharp resources","ncclCommGrow: new rank 9 exceeds total ranks 8",),
        priority=55,
    ),
    Signature(
        id="nccl.init.teardown_error",
        patterns=(
            r"commReclaim: (?:comm \S+ \(rank = \d+\) (?:in abort|destroys proxy resource|in commDestroySync)|cleanup comm \S+ rank \d+ failed)",
            r"commDestroySync: comm \S+ rank \d+ sync \w+ error",
            r"ncclProxyStop: comm \S+ \(rank = \d+\) destroys proxy resource error",
            r"ncclAsyncJobComplete: job \S+ failed, job error \d+",
            r"Legacy IPC cleanup callback failed",
            r"rank \d+ deregister \S+ buffer",
        ),
        cause=None,
        role="context",
        confidence="low",
        title="Error while tearing down a communicator (after an earlier failure)",
        fix="Cleanup of a communicator or async job reported an error; it follows the real failure and is not one itself.",
        origin="NCCL src/init.cc, src/group.cc, src/register/register.cc 2.14-2.30",
        samples=(
            "commDestroySync: comm 0x55d rank 3 sync deviceStream error 1",
            "ncclProxyStop: comm 0x55d (rank = 3) destroys proxy resource error 6",
            "ncclAsyncJobComplete: job 0x55e failed, job error 6",
            "Legacy IPC cleanup callback failed comm 0x55d (rank = 3) cb 0x7f00",
            "rank 3 deregister NVLS buffer 0x7f00 dev 3 ucsize 2097152 mcsize 2097152 failed","commReclaim: cleanup comm 0x55d rank 3 failed in destroy/abort, error 6",),
        priority=30,
    ),
    Signature(
        id="nccl.usage.symmetric_window",
        patterns=(
            r"Window address must be suitably aligned",
            r"Communicator does not support symmetric memory",
            r"window has a NULL user pointer",
            r"Could not find communicator matching window",
            r"ncclPutSignal(?: currently does not support|: (?:peerWin|srcBuff) is NULL|: srcWinHost is not in a valid symmetric window)",
            r"ncclWaitSignal: (?:invalid arguments|descriptor \d+ has invalid)",
            r"(?:Context|Signal index|Flags) \S+ is invalid \(must be 0\)",
        ),
        cause="other",
        role="fault",
        confidence="high",
        title="Symmetric-memory window / one-sided API misuse",
        fix="The application misused NCCL's window/symmetric-memory or one-sided (put/signal) API: unaligned or unregistered buffers, or a communicator without symmetric memory. Fix the call site.",
        origin="NCCL src/dev_runtime.cc, src/enqueue.cc, src/gin/gin_host.cc 2.28-2.30",
        samples=(
            "Communicator does not support symmetric memory!",
            "window has a NULL user pointer",
            "Could not find communicator matching window 0x7f00 (map hbits=4 count=0)",
            "ncclPutSignal: peerWin is NULL",
            "ncclWaitSignal: descriptor 0 has invalid opCnt -1",
            "Signal index 3 is invalid (must be 0)","Window address must be suitably aligned.",),
        priority=60,
    ),
    Signature(
        id="nccl.gin.unavailable",
        patterns=(
            r"GIN (?:not supported|is disabled)\.",
            r"No (?:GIN|RMA)-capable devices found",
            r"RMA not supported\.",
            r"Unable to use GIN: Peermem is not supported",
            r"User requested GIN",
            r"GIN(?: Proxy)?: RMA backend not found",
            r"GIN plugin (?:does not support|\S+ returned invalid context)",
            r"GIN (?:strong|VA) signals are required, but the GIN plugin does not support them",
            r"One sided RMA: host RMA is not supported in this communicator",
        ),
        cause="network",
        role="fault",
        confidence="medium",
        title="GPU-initiated networking (GIN/RMA) unavailable",
        fix="The application needs GIN/one-sided RMA, which needs GPUDirect RDMA (nvidia-peermem or DMA-BUF) and a capable NIC/plugin on every rank.\n$ lsmod | grep nvidia_peermem; ibv_devinfo",
        origin="NCCL src/gin/gin_host.cc, gin_host_proxy.cc, src/rma/rma_proxy.cc, src/transport/net_ib/gin.cc, src/dev_runtime.cc, src/enqueue.cc 2.28-2.30",
        samples=(
            "GIN not supported.",
            "No GIN-capable devices found.",
            "RMA not supported.",
            "User requested GIN but not all ranks in the communicator support GIN",
            "GIN Proxy: RMA backend not found",
            "GIN plugin does not support FLUSH",
            "GIN strong signals are required, but the GIN plugin does not support them.",
            "One sided RMA: host RMA is not supported in this communicator.","Unable to use GIN: Peermem is not supported, and device 0 does not support DMA-BUF.",),
        priority=60,
    ),
    Signature(
        id="nccl.rma.driver_too_old",
        patterns=(r"One-sided RMA requires CUDA driver \d+\.\d+ or later",),
        cause="version_mismatch",
        role="fault",
        confidence="high",
        title="Driver too old for NCCL one-sided RMA",
        fix="One-sided RMA needs a newer CUDA driver; upgrade the driver.\n$ nvidia-smi",
        origin="NCCL src/enqueue.cc 2.30",
        samples=("One-sided RMA requires CUDA driver 12.5 or later (found 12.2).",),
        priority=80,
    ),
    Signature(
        id="nccl.mem.manager_error",
        patterns=(r"MemManager: ", r"Memory (?:suspend|resume) not supported with split_share communicators"),
        cause="other",
        role="fault",
        confidence="low",
        title="NCCL memory manager (suspend/resume/offload) error",
        fix="NCCL's memory manager (2.30 suspend/resume, buffer export) failed; see the message. Often a usage error of the suspend/resume API or a failed handle exchange with a peer.",
        origin="NCCL src/mem_manager.cc 2.30",
        samples=(
            "Memory suspend not supported with split_share communicators (refCount=2)","MemManager: Resume failed, memory manager is disabled",),
        priority=40,
    ),
    Signature(
        id="nccl.sys.affinity_failed",
        patterns=(r"sched_[gs]etaffinity failed with error", r"(?:Get|Set)ProcessAffinityMask failed"),
        cause="other",
        role="fault",
        confidence="low",
        title="Setting CPU affinity failed (container cpuset)",
        fix="NCCL could not read/set CPU affinity; the container's cpuset may not include the GPU's NUMA CPUs. Usually only a performance issue.\n$ cat /sys/fs/cgroup/cpuset.cpus.effective",
        origin="NCCL src/os/linux.cc, src/os/windows.cc 2.30",
        samples=(
            "SetProcessAffinityMask failed with error: 87","sched_setaffinity failed with error: Invalid argument",),
        priority=40,
    ),
    Signature(
        id="nccl.internal.check_failed",
        patterns=(
            r"Unknown (?:pattern(?: for collective)?|collective|collnet pattern) \d+",
            r"Invalid regBufType \d+",
            r"P2p schedule creation has bugs",
            r"Invalid intra-node rank \d+ for peer",
            r"Failure in host setup : ",
            r"hostStreamPlanCallback\(\) failed : ",
            r"Sendrecv plan not aligned for self",
            r"(?:send|recv)ProxyConnect: (?:req|resp)Size is \d+ != \d+",
            r"CollNet sizes: want=\d+ got=\d+",
            r"PXN should not use host buffers for data",
            r"Deregister: Could not find handle",
            r"ncclSymmetricTaskScheduler ran out of channel space",
            r"(?:send|recv)ProxySetup: (?:net|collnet) plugin returned invalid value",
            r"Error waiting for pthread_join",
            r"asyncJobLaunch: failed to join thread",
            r"Net registration invalid algorithm",
            r"Unknown device error -?\d+",
            r"Connecting ring \d+ : (?:did not find|inconsistent) start/end",
            r"Internal error : NVswitch links mismatch",
            r"Recursive P2P computation cannot work for >8 GPUs",
            r"NET/IB: ncclIb(?:Isend|Irecv)\(\) called when comm->(?:base\.)?ready == 0",
        ),
        cause="other",
        role="fault",
        confidence="low",
        title="NCCL internal consistency check failed",
        fix="An internal check in NCCL failed (a bug, a plugin returning bad values, or a consequence of an earlier error). Look for an earlier failure; otherwise upgrade NCCL / the network plugin and report it.",
        origin="NCCL src/enqueue.cc, src/init.cc, src/group.cc, src/transport/coll_net.cc, src/transport/net.cc, src/register/register.cc, src/scheduler/symmetric_sched.cc 2.4-2.30",
        samples=(
            "Invalid regBufType 4",
            "P2p schedule creation has bugs.",
            "Invalid intra-node rank 9 for peer 3",
            "Failure in host setup : unhandled cuda error",
            "Sendrecv plan not aligned for self",
            "sendProxyConnect: reqSize is 8 != 16",
            "CollNet sizes: want=8 got=4",
            "PXN should not use host buffers for data",
            "Deregister: Could not find handle",
            "ncclSymmetricTaskScheduler ran out of channel space (nMaxChannels=32, workCount=40, workIndex=33)",
            "sendProxySetup: net plugin returned invalid value for maxP2pBytes 0",
            "Error waiting for pthread_join : No such process",
            "asyncJobLaunch: failed to join thread for job",
            "Net registration invalid algorithm NVLS",
            "Unknown device error 2",
            "Connecting ring 1 : did not find start/end. Disabling other rings.",
            "Internal error : NVswitch links mismatch",
            "Recursive P2P computation cannot work for >8 GPUs",
            "NET/IB: ncclIbIsend() called when comm->base.ready == 0","Unknown pattern for collective 3 algorithm 6", "hostStreamPlanCallback() failed : unhandled cuda error"),
        priority=35,
    ),
    Signature(
        id="nccl.usage.fifo_too_small",
        patterns=(r"'NCCL_WORK_FIFO_DEPTH=\d+' is too small",),
        cause="other",
        role="fault",
        confidence="high",
        title="NCCL_WORK_FIFO_DEPTH too small",
        fix="NCCL_WORK_FIFO_DEPTH is below the minimum; unset it or raise it.",
        origin="NCCL src/enqueue.cc 2.14-2.21",
        samples=("'NCCL_WORK_FIFO_DEPTH=16' is too small. Minimum value is 64",),
        priority=60,
    ),
    # ---------------------------------------------------------------- versions
    Signature(
        id="nccl.version.mismatch_ranks",
        patterns=(r"Mismatched NCCL version detected : rank \d+ version \d+ rank \d+ version \d+",),
        extract=r"rank (?P<rank_a>\d+) version (?P<ver_a>\d+) rank (?P<rank_b>\d+) version (?P<ver_b>\d+)",
        cause="version_mismatch",
        role="fault",
        confidence="high",
        title="Ranks run different NCCL versions",
        fix="Rank {rank_a} runs NCCL {ver_a}, rank {rank_b} runs {ver_b}. Install the same NCCL (same PyTorch wheel/container image) on every node.",
        origin="NCCL src/init.cc 2.23-2.30",
        samples=("gpu:1:1 [0] init.cc:900 NCCL WARN Mismatched NCCL version detected : rank 0 version 22105 rank 8 version 22304",),
        priority=90,
    ),
    Signature(
        id="nccl.version.ras_mismatch",
        patterns=(r"NCCL version mismatch with remote peer \S+",),
        extract=r"remote peer (?P<peer>\S+) \(local: (?P<local>[^,]+), remote:? (?P<remote>[^)]+)\)",
        cause="version_mismatch",
        role="fault",
        confidence="high",
        title="RAS: a peer runs another NCCL version",
        fix="The RAS thread found that {peer} runs NCCL {remote} while this process runs {local}. Use the same NCCL everywhere.",
        origin="NCCL src/ras/ras.cc 2.26-2.30 (`local: %d, remote %d` 2.26-2.28, `local: %s, remote %s` 2.30)",
        samples=("NCCL version mismatch with remote peer 10.0.0.7<28029> (local: 22605, remote 22703)",),
        priority=90,
    ),
    Signature(
        id="nccl.version.devcomm_too_old",
        patterns=(
            r"NCCL library is too old\. This application was compiled with NCCL version",
            r"NCCL library is not backwards compatible\. This application was compiled with NCCL version",
            r"The application was compiled with too old version of NCCL",
        ),
        cause="version_mismatch",
        role="fault",
        confidence="high",
        title="Application and NCCL library versions incompatible (device API)",
        fix="The application was compiled against a different NCCL than the libnccl it loads. Rebuild it against the installed NCCL or load the matching library.\n$ ldconfig -p | grep libnccl; echo $LD_LIBRARY_PATH",
        origin="NCCL src/dev_runtime.cc, src/devcomm/*.cc 2.30",
        samples=(
            "NCCL library is not backwards compatible. This application was compiled with NCCL version 2.29.2, but is running with NCCL 2.30.7.",
            "The application was compiled with too old version of NCCL. It was compiled with NCCL version 2.28.3, but is running with 2.30.7.","NCCL library is too old. This application was compiled with NCCL version 2.30.7, but is running with NCCL 2.29.3.",),
        priority=85,
    ),
    Signature(
        id="nccl.version.banner",
        patterns=(r"NCCL version \d+\.\d+\.\d+\S*\+cuda\d+",),
        extract=r"NCCL version (?P<nccl_version>\d+\.\d+\.\d+)\S*?(?:\+cuda(?P<cuda_version>\d+\.\d+))?",
        cause=None,
        role="context",
        confidence="high",
        title="NCCL version",
        fix="NCCL {nccl_version} built for CUDA {cuda_version}.",
        origin="NCCL src/init.cc VERSION_STRING `NCCL version %d.%d.%d%s+cuda%d.%d` 2.4-2.30 (bare stdout line <=2.21); requires `+cuda` so the `NCCL version x.y.z` tail of PyTorch exceptions does not match",
        samples=("NCCL version 2.4.8+cuda10.1", "gpu-a:1:1 [0] NCCL INFO NCCL version 2.21.5+cuda12.4"),
        priority=30,
    ),
    Signature(
        id="nccl.version.cuda_driver",
        patterns=(r"cudaDriverVersion \d+",),
        extract=r"cudaDriverVersion (?P<driver_cuda>\d+)",
        cause=None,
        role="context",
        confidence="high",
        title="CUDA driver API version",
        fix="The driver supports CUDA {driver_cuda}.",
        origin="NCCL src/misc/cudawrap.cc / init.cc INFO 2.13-2.30",
        samples=("gpu:1:1 [0] NCCL INFO cudaDriverVersion 12020",),
        priority=30,
    ),
    # ---------------------------------------------------------------- RAS (2.24+)
    Signature(
        id="nccl.ras.peer_dead",
        patterns=(
            r"RAS declaring peer \S+ as DEAD",
            r"\d+ job process(?:es)? (?:is|are) considered dead \(unreachable via the RAS network\)",
            r"PEER_DEAD: Process \d+ on node",
            r"RAS connection from peer \S+ that is considered dead",
        ),
        extract=r"(?:peer (?P<peer>\S+) as DEAD|Process (?P<peer_pid>\d+) on node (?P<peer_node>\S+))",
        cause="rank_crash",
        role="symptom",
        confidence="medium",
        title="RAS: a job process is dead (unreachable for 60 s)",
        fix="NCCL RAS lost contact with a process for over a minute: it crashed, hung hard, or its node dropped off the network. Check that process's log and node first.\n$ ncclras -v   # on any node of the job",
        origin="NCCL src/ras/ras.cc, src/ras/peers.cc INFO, src/ras/client_support.cc report 2.24-2.30 (PEER_DEAD monitor event 2.29+)",
        samples=(
            "[2025-12-19 13:07:07] PEER_DEAD: Process 1524345 on node 172.16.64.245 managing GPU 1",
            "gpu:1:77 [0] NCCL INFO RAS connection from peer 10.0.0.5<28028> that is considered dead!",
            "gpu:1:77 [0] NCCL INFO RAS declaring peer 10.0.0.5<28028> as DEAD; rasDeadPeersHash 0x3f2a",
            "  1 job process is considered dead (unreachable via the RAS network)",
        ),
        priority=70,
    ),
    Signature(
        id="nccl.ras.mismatch_counts",
        patterns=(r"Communicator ranks have different \S+ operation counts",),
        cause="collective_timeout_straggler",
        role="fault",
        confidence="high",
        title="RAS: ranks stopped at different collective counts (straggler/desync)",
        fix="Some ranks launched fewer collectives than the others: they are stuck or took another code path. The report's `Rank R -- GPU g managed by process P on node H` lines name them.\n$ ncclras -v",
        origin="NCCL src/ras/client_support.cc 2.24-2.30",
        samples=("  Communicator ranks have different AllReduce operation counts",),
        priority=80,
    ),
    Signature(
        id="nccl.ras.missing_data",
        patterns=(r"Missing communicator data from \d+ (?:job process|rank)", r"Encountered \d+ communication timeouts while gathering communicator data"),
        cause="collective_timeout_straggler",
        role="symptom",
        confidence="medium",
        title="RAS: some processes did not answer the status query",
        fix="Some processes/ranks did not report: they are hung or dead. The report lists which (`The missing rank`, `Process P on node H`).",
        origin="NCCL src/ras/client_support.cc 2.24-2.30",
        samples=(
            "  Encountered 2 communication timeouts while gathering communicator data","  Missing communicator data from 2 job processes",),
        priority=65,
    ),
    Signature(
        id="nccl.ras.comm_errors",
        patterns=(r"(?:Initialization|Asynchronous) errors? on \d+ ranks?",),
        extract=r"(?P<kind>Initialization|Asynchronous) errors? on (?P<count>\d+) rank",
        cause="network",
        role="symptom",
        confidence="low",
        title="RAS: communicator ranks report NCCL errors",
        fix="{kind} errors on {count} rank(s) of a communicator; the RAS report's `Rank R -- GPU g managed by process P on node H` lines name them. Look at those processes' NCCL WARN lines.",
        origin="NCCL src/ras/client_support.cc 2.24-2.30 (`#%d-%d (%016lx) ERROR` section)",
        samples=("  Asynchronous errors on 2 ranks",),
        priority=50,
    ),
    Signature(
        id="nccl.ras.rank_location",
        patterns=(r"Rank \d+ (?:has status \S+ )?-- GPU \S+ managed by process \d+ on node \S+", r"^ *Process \d+ on node \S+ managing GPUs? "),
        extract=r"(?:Rank (?P<ras_rank>\d+) (?:has status \S+ )?-- GPU (?P<gpu>\S+) managed by process (?P<ras_pid>\d+) on node (?P<node>\S+)|Process (?P<proc_pid>\d+) on node (?P<proc_node>\S+))",
        cause=None,
        role="context",
        confidence="high",
        title="RAS report: where a rank/process lives",
        fix="RAS names the rank/process concerned by the section above (status, GPU, pid and node).",
        origin="NCCL src/ras/client_support.cc 2.24-2.30",
        samples=("  Rank 0 -- GPU 0 managed by process 483072 on node 172.16.64.210", "  Process 1524345 on node 172.16.64.245 managing GPU 1"),
        priority=25,
    ),
    Signature(
        id="nccl.ras.timeouts",
        patterns=(
            r"RAS (?:keep-alive|init|connect retry|termination stuck) timeout error",
            r"RAS send stuck timeout error",
            r"RAS connect retry timeout \(\d+s\)",
            r"RAS collective \S+ timeout error \(\d+s\) -- giving up on \d+ missing responses",
        ),
        cause="network",
        role="symptom",
        confidence="low",
        title="RAS connection timeout to a peer",
        fix="The RAS keep-alive to a peer timed out: the peer is hung, dead, or the network between the nodes is lossy.",
        origin="NCCL src/ras/*.cc INFO 2.24-2.30",
        samples=(
            "gpu:1:77 [0] NCCL INFO RAS send stuck timeout error (20s) on socket connection with 10.0.0.9<28028>","RAS keep-alive timeout error (20s) on socket connection with 10.0.0.9<28028>",),
        priority=45,
    ),
    Signature(
        id="nccl.ras.listening",
        patterns=(r"RAS (?:client|network) listening socket at \S+",),
        cause=None,
        role="context",
        confidence="high",
        title="NCCL RAS enabled",
        fix="NCCL RAS is running; query it during a hang:\n$ ncclras -v",
        origin="NCCL src/ras/ras.cc INFO 2.24-2.30",
        samples=("gpu:1:1 [0] NCCL INFO RAS client listening socket at ::1<28028>",),
        priority=25,
    ),
)

_RESULT: tuple[Signature, ...] = (
    # ---------------------------------------------------------------- ncclResult_t / ncclGetErrorString
    Signature(
        id="nccl.result.remote_error",
        patterns=(r"remote process exited or there was a network error",),
        cause="network",
        role="symptom",
        confidence="low",
        title="ncclRemoteError: a remote process exited or the network failed",
        fix="NCCL lost a peer (ncclRemoteError, 6). Either the remote process died first (then its own log holds the cause) or the network between them failed. Find the earliest failing rank before blaming the network.",
        origin="NCCL src/init.cc ncclGetErrorString(ncclRemoteError) 2.13-2.30",
        samples=(
            "RuntimeError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/NCCLUtils.hpp:268, remote process exited or there was a network error, NCCL version 2.21.5",
            "kolyoz2: Test NCCL failure common.cu:1005 'remote process exited or there was a network error / '",
        ),
        priority=30,
    ),
    Signature(
        id="nccl.result.system_error",
        patterns=(r"unhandled system error",),
        cause="network",
        role="fault",
        confidence="low",
        title="ncclSystemError: a system call or network operation failed (generic)",
        fix="NCCL returned ncclSystemError (2): a syscall, socket, IB verbs or shared-memory call failed. The message itself is generic; the NCCL WARN lines (NCCL_DEBUG=WARN or INFO) name the failing call.\n$ export NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET",
        origin="NCCL src/init.cc ncclGetErrorString(ncclSystemError) `unhandled system error` 2.4-2.12, `... (run with NCCL_DEBUG=INFO for details)` 2.13-2.30",
        samples=(
            "RuntimeError: NCCL error in: /pytorch/torch/lib/c10d/ProcessGroupNCCL.cpp:784, unhandled system error, NCCL version 2.7.8",
            "  what():  NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.18.1",
        ),
        priority=25,
    ),
    Signature(
        id="nccl.result.cuda_error",
        patterns=(r"unhandled cuda error",),
        cause="other",
        role="fault",
        confidence="low",
        title="ncclUnhandledCudaError: a CUDA call inside NCCL failed (generic)",
        fix="NCCL returned ncclUnhandledCudaError (1). The `Cuda failure '...'` WARN line names the CUDA error (out of memory, invalid device ordinal, peer access ...); rerun with NCCL_DEBUG=WARN if it is missing.",
        origin="NCCL src/init.cc ncclGetErrorString(ncclUnhandledCudaError) 2.4-2.30",
        samples=("torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.19.3",),
        priority=25,
    ),
    Signature(
        id="nccl.result.internal_error",
        patterns=(
            r"internal error - please report this issue to the NCCL developers",
            r"[,:] internal error, NCCL version",
        ),
        cause="other",
        role="fault",
        confidence="low",
        title="ncclInternalError (generic)",
        fix="NCCL returned ncclInternalError (3). Despite the name it often follows a peer failure or a mismatch between ranks; look at the NCCL WARN lines and other ranks first.",
        origin="NCCL src/init.cc ncclGetErrorString(ncclInternalError) `internal error` 2.4-2.12, `internal error - please report this issue to the NCCL developers` 2.13-2.30",
        samples=(
            "RuntimeError: NCCL error in: /opt/conda/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1269, internal error, NCCL version 2.14.3",
            "[rank0]: torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1970, internal error - please report this issue to the NCCL developers, NCCL version 2.20.5",
        ),
        priority=25,
    ),
    Signature(
        id="nccl.result.invalid_argument",
        patterns=(
            r"invalid argument \(run with NCCL_DEBUG=WARN for details\)",
            r"NCCL error[^,]*, invalid argument, NCCL version",
        ),
        cause="other",
        role="fault",
        confidence="low",
        title="ncclInvalidArgument (generic)",
        fix="NCCL rejected an argument (ncclInvalidArgument, 4); the NCCL WARN line (NCCL_DEBUG=WARN) names it (NULL/host buffer, bad root, unsupported dtype).",
        origin="NCCL src/init.cc ncclGetErrorString(ncclInvalidArgument) 2.4-2.30",
        samples=(
            "RuntimeError: NCCL error in: /pytorch/torch/lib/c10d/ProcessGroupNCCL.cpp:514, invalid argument, NCCL version 2.7.8","RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:825, invalid argument (run with NCCL_DEBUG=WARN for details), NCCL version 2.18.5",),
        priority=25,
    ),
    Signature(
        id="nccl.result.invalid_usage",
        patterns=(
            r"invalid usage \(run with NCCL_DEBUG=WARN for details\)",
            r"NCCL error[^,]*, invalid usage, NCCL version",
        ),
        cause="other",
        role="fault",
        confidence="low",
        title="ncclInvalidUsage (generic; duplicate GPU is a common cause)",
        fix="NCCL reported ncclInvalidUsage (5). The most common cause is two ranks on one GPU (`Duplicate GPU detected`); the NCCL WARN line (NCCL_DEBUG=WARN) names the actual misuse.",
        origin="NCCL src/init.cc ncclGetErrorString(ncclInvalidUsage) 2.4-2.30",
        samples=(
            "torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1970, invalid usage (run with NCCL_DEBUG=WARN for details), NCCL version 2.20.5","RuntimeError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:957, invalid usage, NCCL version 21.0.3",),
        priority=25,
    ),
    Signature(
        id="nccl.result.timeout",
        patterns=(r", timeout, NCCL version \d", r"Test NCCL failure \S+:\d+ 'timeout"),
        cause="collective_timeout_straggler",
        role="symptom",
        confidence="low",
        title="ncclTimeout (NCCL 2.30+): an NCCL wait exceeded its budget",
        fix="NCCL returned ncclTimeout (8): a device-side barrier or wait did not complete in time, i.e. a peer is slow, stuck or gone. Find the rank that stopped progressing.",
        origin="NCCL src/init.cc ncclGetErrorString(ncclTimeout) `timeout` 2.30 (src/nccl.h.in ncclTimeout = 8)",
        samples=(
            "gpu-f: Test NCCL failure common.cu:1101 'timeout / '","torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:2120, timeout, NCCL version 2.30.7",),
        priority=40,
    ),
    Signature(
        id="nccl.result.in_progress",
        patterns=(r"NCCL operation in progress",),
        cause=None,
        role="harmless",
        confidence="medium",
        title="ncclInProgress (non-blocking communicator still initializing)",
        fix="ncclInProgress (7) is not an error for non-blocking communicators; it becomes one only if the operation never completes.",
        origin="NCCL src/init.cc ncclGetErrorString(ncclInProgress) 2.14-2.30",
        samples=("NCCL error: NCCL operation in progress",),
        priority=25,
    ),
    Signature(
        id="nccl.result.unknown_code",
        patterns=(r"unknown result code",),
        cause="version_mismatch",
        role="fault",
        confidence="low",
        title="Unknown ncclResult_t code (library and caller from different NCCL versions?)",
        fix="ncclGetErrorString did not know the code: the caller and libnccl may come from different NCCL versions.",
        origin="NCCL src/init.cc ncclGetErrorString default 2.4-2.30",
        samples=("NCCL error: unknown result code",),
        priority=25,
    ),
    # ---------------------------------------------------------------- error trail `-> N`
    Signature(
        id="nccl.trail.network_error",
        patterns=(r"(?:^|[\s/])(?:net|net_socket|net_ib\w*|socket|ibvwrap|bootstrap|p2p_plugin|net_v\d+)\.(?:cc|h):\d+(?: \(\w+\))? -> [26]\b",),
        extract=r"(?P<file>[\w./+-]+):(?P<line>\d+)(?: \(\w+\))? -> (?P<rc>[26])",
        cause="network",
        role="symptom",
        confidence="low",
        title="ncclSystemError/ncclRemoteError raised in NCCL's network code, with no WARN saying why",
        fix=("The error trail starts in NCCL's network transport ({file} -> {rc}): sockets, IB verbs, a net plugin "
             "or the bootstrap failed, and the WARN with the reason was not printed or not captured. Re-run with "
             "NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET and check the interface every node uses:\n" + _SOCKET_CHECK),
        origin=("NCCL src/include/checks.h NCCLCHECK trail INFO `%s:%d -> %d` from src/transport/net*.cc, "
                "src/misc/socket.cc, src/include/socket.h, src/misc/ibvwrap.cc, src/bootstrap.cc (2.4-2.30); "
                "ncclSystemError = 2, ncclRemoteError = 6"),
        samples=("gpu-b:1201:1290 [1] NCCL INFO transport/net_socket.cc:530 -> 2",
                 "gpu-b:1201:1290 [1] NCCL INFO bootstrap.cc:88 -> 6"),
        priority=40,
    ),
    Signature(
        id="nccl.trail.system_error",
        patterns=(r"\.(?:cc|cu|h|c|cpp):\d+(?: \(\w+\))? -> 2\b",),
        extract=r"(?P<file>[\w./+-]+):(?P<line>\d+)(?: \((?P<func>\w+)\))? -> 2(?: \((?P<errno>[^)]*)\))?",
        cause=None,
        role="context",
        confidence="high",
        title="NCCL error trail: ncclSystemError (2)",
        fix="Part of the stack trail of an ncclSystemError ({errno}) raised in {file}:{line}; the first trail line and the WARN before it are the origin.",
        origin="NCCL src/include/checks.h NCCLCHECK/SYSCHECK INFO `%s:%d -> %d (%s)` 2.4-2.30 (`(func)` added 2.30.7)",
        samples=("gpu:1:1 [0] NCCL INFO misc/socket.cc:484 -> 2 (Connection refused)", "gpu:1:1 [0] NCCL INFO bootstrap.cc:92 (bootstrapNetSend) -> 2"),
        priority=20,
    ),
    Signature(
        id="nccl.trail.remote_error",
        patterns=(r"\.(?:cc|cu|h|c|cpp):\d+(?: \(\w+\))? -> 6\b",),
        extract=r"(?P<file>[\w./+-]+):(?P<line>\d+)(?: \((?P<func>\w+)\))? -> 6",
        cause=None,
        role="context",
        confidence="high",
        title="NCCL error trail: ncclRemoteError (6)",
        fix="Part of the trail of an ncclRemoteError (a peer exited or the network failed) from {file}:{line}.",
        origin="NCCL src/include/checks.h INFO `%s:%d -> %d` 2.13-2.30",
        samples=("gpu:1:1 [0] NCCL INFO misc/socket.cc:58 (socketProgress) -> 6",),
        priority=20,
    ),
    Signature(
        id="nccl.trail.cuda_error",
        patterns=(r"\.(?:cc|cu|h|c|cpp):\d+(?: \(\w+\))? -> 1\b",),
        extract=r"(?P<file>[\w./+-]+):(?P<line>\d+)(?: \((?P<func>\w+)\))? -> 1",
        cause=None,
        role="context",
        confidence="high",
        title="NCCL error trail: ncclUnhandledCudaError (1)",
        fix="Part of the trail of a CUDA failure inside NCCL from {file}:{line}; the `Cuda failure` WARN names it.",
        origin="NCCL src/include/checks.h INFO `%s:%d -> %d` 2.4-2.30",
        samples=("gpu:1:1 [0] NCCL INFO include/alloc.h:125 -> 1",),
        priority=20,
    ),
    Signature(
        id="nccl.trail.other_error",
        patterns=(r"\.(?:cc|cu|h|c|cpp):\d+(?: \(\w+\))? -> [3-9]\b",),
        extract=r"(?P<file>[\w./+-]+):(?P<line>\d+)(?: \((?P<func>\w+)\))? -> (?P<rc>\d+)",
        cause=None,
        role="context",
        confidence="high",
        title="NCCL error trail (internal error 3, invalid argument 4, invalid usage 5, in progress 7, timeout 8)",
        fix="Part of the trail of ncclResult_t {rc} (3 internal, 4 invalid argument, 5 invalid usage, 7 in progress, 8 timeout) from {file}:{line}.",
        origin="NCCL src/include/checks.h INFO `%s:%d -> %d` 2.4-2.30; ncclResult_t in src/nccl.h.in",
        samples=("gpu:1:1 [0] NCCL INFO init.cc:1458 -> 5", "gpu:1:1 [0] NCCL INFO group.cc:64 -> 3 [Async thread]"),
        priority=20,
    ),
    # ---------------------------------------------------------------- settings and context
    Signature(
        id="nccl.env.p2p_disabled",
        patterns=(r"NCCL_P2P_DISABLE set by environment to 1",),
        cause="p2p_unsupported",
        role="context",
        confidence="low",
        title="NCCL_P2P_DISABLE=1 in effect (P2P workaround set)",
        fix="GPU peer-to-peer is disabled by the environment; a common workaround for broken P2P (IOMMU/ACS), at a bandwidth cost.",
        origin="NCCL src/misc/param.cc INFO `%s set by environment to %s` 2.4-2.30",
        samples=("gpu:1:1 [0] NCCL INFO NCCL_P2P_DISABLE set by environment to 1",),
        priority=35,
    ),
    Signature(
        id="nccl.env.ib_disabled",
        patterns=(r"NCCL_IB_DISABLE set by environment to 1",),
        cause="network",
        role="context",
        confidence="low",
        title="NCCL_IB_DISABLE=1 in effect (InfiniBand off, TCP sockets used)",
        fix="InfiniBand/RoCE is disabled by the environment; inter-node traffic uses TCP sockets.",
        origin="NCCL src/misc/param.cc INFO 2.4-2.30",
        samples=("gpu:1:1 [0] NCCL INFO NCCL_IB_DISABLE set by environment to 1.",),
        priority=35,
    ),
    Signature(
        id="nccl.env.socket_ifname",
        patterns=(r"NCCL_SOCKET_IFNAME set (?:by environment )?to \S+",),
        extract=r"NCCL_SOCKET_IFNAME set (?:by environment )?to (?P<iface>\S+)",
        cause=None,
        role="context",
        confidence="high",
        title="NCCL_SOCKET_IFNAME in effect",
        fix="NCCL selects network interfaces matching {iface}.",
        origin="NCCL src/misc/socket.cc INFO 2.4-2.30",
        samples=("gpu:1:1 [0] NCCL INFO NCCL_SOCKET_IFNAME set by environment to eth0",),
        priority=32,
    ),
    Signature(
        id="nccl.env.set",
        patterns=(r"NCCL_\w+ set by environment to ",),
        extract=r"(?P<var>NCCL_\w+) set by environment to (?P<value>\S+?)\.?$",
        cause=None,
        role="context",
        confidence="high",
        title="NCCL setting from the environment",
        fix="{var}={value} was set in the environment.",
        origin="NCCL src/misc/param.cc INFO `%s set by environment to %s` / `%lld.` 2.4-2.30",
        samples=("gpu:1:1 [0] NCCL INFO NCCL_DEBUG_SUBSYS set by environment to INIT,NET", "[default0]:NCCL_BUFFSIZE set by environment to 8388608."),
        priority=30,
    ),
    Signature(
        id="nccl.init.complete",
        patterns=(r"- Init COMPLETE",),
        extract=r"rank (?P<comm_rank>\d+) nranks (?P<nranks>\d+) cudaDev (?P<cuda_dev>\d+)",
        cause=None,
        role="context",
        confidence="high",
        title="Communicator initialized",
        fix="Rank {comm_rank} of {nranks} finished communicator init on CUDA device {cuda_dev}.",
        origin="NCCL src/init.cc INFO `... - Init COMPLETE` 2.4-2.30",
        samples=("gpu:1:1 [0] NCCL INFO ncclCommInitRank comm 0x56223d711810 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 1e0 commId 0xef1a7a6ce2d1f588 - Init COMPLETE",),
        priority=20,
    ),
    Signature(
        id="nccl.init.abort_complete",
        patterns=(r"- Abort (?:COMPLETE|START)", r"ncclOsSocketProgressOpt: abort called"),
        cause=None,
        role="context",
        confidence="high",
        title="Communicator aborted",
        fix="The communicator was aborted (by the application, e.g. PyTorch's watchdog, after an error or timeout).",
        origin="NCCL src/init.cc INFO `... - Abort COMPLETE` 2.12-2.30 (literal to 2.21, `%s COMPLETE` after; INIT subsystem <=2.29, DESTROY 2.30+)",
        samples=("gpu:1:1 [0] NCCL INFO comm 0x55b3c0 rank 3 nranks 8 cudaDev 3 busId 3f000 - Abort COMPLETE",),
        priority=25,
    ),
    # ---------------------------------------------------------------- catch-all
    # A WARN the catalog has no entry for (another NCCL version's wording) still says which part of
    # NCCL failed: its network transports tag their messages `NET/IB :`, `NET/Socket :`,
    # `Bootstrap :`, and the shared-memory transport names its /dev/shm segment. Read at `low` and
    # only where the run failed; any entry that knows the message outranks these.
    Signature(
        id="nccl.net.warn_family",
        patterns=(r"NCCL WARN (?:NET/(?:IB|Socket|MLX5|Plugin)|Bootstrap|Net) ?: ?\S",),
        extract=r"NCCL WARN (?P<message>.+)$",
        cause="network",
        role="fault",
        confidence="low",
        title="NCCL's network transport warned (a message the catalog does not know)",
        fix=("NCCL's network or bootstrap code reported: {message}. Check the interface and the fabric every node "
             "uses:\n" + _SOCKET_CHECK),
        origin=("NCCL src/transport/net_ib*.cc, net_socket.cc, src/bootstrap.cc, src/misc/socket.cc WARN(\"NET/IB : "
                "...\"), WARN(\"NET/Socket : ...\"), WARN(\"Bootstrap : ...\"), WARN(\"Net : ...\") 2.4-2.30"),
        samples=("gpu-a:4242:4300 [0] transport/net_ib.cc:612 NCCL WARN NET/IB : mlx5_3:1 link went down during setup",
                 "gpu-a:4242:4242 [0] bootstrap.cc:301 NCCL WARN Bootstrap : peer handshake did not complete"),
        priority=15,
        survivable=True,
    ),
    Signature(
        id="nccl.shm.warn_family",
        patterns=(r"NCCL WARN .*(?:/dev/shm/|shared memory (?:segment|file|mapping) )",),
        extract=r"NCCL WARN (?P<message>.+)$",
        cause="shm_exhausted",
        role="fault",
        confidence="low",
        title="NCCL's shared-memory transport warned about a /dev/shm segment (a message the catalog does not know)",
        fix=("NCCL reported: {message}. Its shared-memory transport keeps one file per peer pair in /dev/shm; "
             "check that it is large enough and writable in every container:\n"
             "$ df -h /dev/shm   # docker: --shm-size=16g or --ipc=host; k8s: an emptyDir with medium: Memory"),
        origin=("NCCL src/misc/shmutils.cc, src/os/linux.cc WARN texts naming the segment (`Error while %s shared "
                "memory segment %s`, `failed to extend %s`, `failed to create shared memory file %s`) 2.12-2.30"),
        samples=("gpu-a:4242:4300 [2] misc/shmutils.cc:90 NCCL WARN Error: could not lock /dev/shm/nccl-a1B2c3 (size 9637888)",),
        priority=15,
        survivable=True,
    ),
    Signature(
        id="nccl.warn.generic",
        patterns=(r"NCCL WARN ",),
        extract=r"NCCL WARN (?P<message>.+)$",
        cause=None,
        role="context",
        confidence="low",
        title="NCCL warning (not in the catalog)",
        fix="NCCL printed a warning the catalog does not know: {message}",
        origin="NCCL src/include/debug.h WARN() -> src/debug.cc `NCCL WARN` 2.4-2.30",
        samples=("gpu:1:1 [0] some/file.cc:12 NCCL WARN Something new happened",),
        priority=10,
    ),
)

# NCCL's internal checks, by subsystem (src/gin, src/rma, src/dev_runtime.cc and src/register for the
# device API and symmetric memory; src/transport/net_ib resiliency; src/allocator.cc,
# src/proxy.cc, src/misc/param.cc, src/misc/utils.cc; src/graph/topo.cc and xml.cc; src/ras): what
# each family means for the job, at low confidence (the WARN says where, not why).
_INTERNAL: tuple[Signature, ...] = (
    Signature(
        id="nccl.internal.device_api",
        patterns=(r"NCCL WARN .*(?:\bGIN\b|\bRMA\b|[Rr]ma [Pp]roxy|ncclRma\w*|\bLSA\b|ncclDevr\w*|Window registration|Dev comm not found|worldGinBarrier|\bGFD\b|\bDOCA\b|ncclSignal: |GDAKI|MCBasePtr|NCCL_ELASTIC_BUFFER_REGISTER|[Ss]ymmetric (?:memory|register)|(?:gin|rma)Plugin|lsaRank|Hierarchical CE collective|Rma connect : )",),
        cause="other",
        role="fault",
        confidence="low",
        title="NCCL's device API / symmetric-memory layer failed (GIN, RMA, LSA windows)",
        fix=("A feature of NCCL's device-initiated API or symmetric memory (2.27+: GIN, RMA, LSA teams, window "
             "registration) failed its checks: usually an unsupported setup (no DMA-BUF/GDRCopy, a driver or "
             "NIC without the capability) or an NCCL bug. Check the versions and rerun without the feature:\n"
             "$ NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,ALLOC,NET <your launch command>"),
        origin="NCCL src/gin/*, src/rma/*, src/dev_runtime.cc, src/register/* WARN texts (2.27-2.30)",
        samples=("gpu-a:4242:4300 [0] gin/gin_host.cc:212 NCCL WARN rank 3 - GIN Symmetric register failed: buff 0x7f00, size 4096",
                 "gpu-a:4242:4300 [0] rma/rma_proxy.cc:90 NCCL WARN RMA proxy is not connected"),
        priority=30,
    ),
    Signature(
        id="nccl.ib.resiliency_internal",
        patterns=(r"NCCL WARN NET/IB ?: .*(?:request|[Rr]esiliency|replay|repost|prob(?:e|ing)|CQE|wr_id|QP|alive message|failure queue|vNic|mlx5dv|opcode|completion status|sendReq|GoToPrevState)",),
        cause="network",
        role="fault",
        confidence="low",
        title="NCCL's IB transport lost track of a request or QP (resiliency / completion handling)",
        fix=("NCCL's InfiniBand transport met a completion or request it could not match, or its resiliency "
             "(failover between NICs) could not recover: the fabric dropped or reordered work on a failing link. "
             "Check the ports and counters on both nodes:\n$ ibstat; ibv_devinfo | grep -E 'state|link_layer'\n"
             "$ perfquery -x   # symbol/link error counters"),
        origin="NCCL src/transport/net_ib/*.cc (p2p.cc, resiliency.cc, connect.cc) WARN texts (2.28-2.30)",
        samples=("gpu-a:4242:4300 [0] transport/net_ib/p2p.cc:700 NCCL WARN NET/IB: Encountered a stale CQE with error for slot=3. Slot was already handled (comm=0x55, wc.wr_id=12, wc.status=IBV_WC_RETRY_EXC_ERR(12))",),
        priority=35,
    ),
    Signature(
        id="nccl.internal.invariant",
        patterns=(r"NCCL WARN (?:Intrusive address map|Object pointer is NULL|Output object pointer is NULL|Invalid key size|Couldn't find opId|Could not find pool of op|Inactive op has next|ncclProxyConnect: \w+ -?\d+ out of bounds|No allocation found at offset|Allocation failed|Given size=\S+ extends beyond|Device object does not exist|invalid pointer \S+ / size|Invalid argument (?:desc|comm) |PARAM: Duplicate|getRandomData: |Thread join failed|(?:NET/MLX5: )?lib wrapper not initialized|Group creation failed|Listencomm in unknown state|Invalid client status|trying to access the number of devices|failed to set the number of devices|Unknown device code index|Not enough space to get elements|Error: trying to connect already connected|bcastGrowHandle: |bootstrapInit: handles and parent|rank \d+ invalid IPC peer(?:Rank|Index))",),
        cause="other",
        role="fault",
        confidence="low",
        title="An internal consistency check of NCCL failed",
        fix=("NCCL found its own state inconsistent (allocator, proxy operations, a plugin table, parameters): an "
             "NCCL bug, a net/tuner plugin built for another NCCL version, or memory corruption in the process. "
             "Try the current NCCL release and without third-party plugins:\n"
             "$ NCCL_NET_PLUGIN=none NCCL_TUNER_PLUGIN=none NCCL_DEBUG=INFO <your launch command>"),
        origin="NCCL src/allocator.cc, src/proxy.cc, src/misc/param.cc, src/misc/utils.cc, src/plugin/*.cc, src/bootstrap.cc internal-check WARN texts (2.19-2.30)",
        samples=("gpu-a:4242:4300 [0] proxy.cc:410 NCCL WARN Could not find pool of op 0x7f12",
                 "gpu-a:4242:4300 [0] misc/param.cc:80 NCCL WARN PARAM: Duplicate option name \"NCCL_PROTO\""),
        priority=30,
    ),
    Signature(
        id="nccl.topo.detection_failed",
        patterns=(r"NCCL WARN (?:ncclTopo\w* ?: |BusId 0x[0-9a-fA-F]+ has non-zero bits|MLOPart index|Invalid number of network devices|Unknown netDevs policy|Error : (?:value|name) \S+ too long|nLocals = \d+ should be a diviser)",),
        cause="other",
        role="fault",
        confidence="low",
        title="NCCL's topology detection failed",
        fix=("NCCL could not build the node's topology (PCI tree, NICs, NVLink): a container that hides /sys, an "
             "unusual PCI layout, or a topology file (NCCL_TOPO_FILE) that does not fit. Dump what NCCL sees:\n"
             "$ NCCL_TOPO_DUMP_FILE=/tmp/topo.xml NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=GRAPH <your launch command>\n"
             "$ ls /sys/class/infiniband /sys/bus/pci/devices | head"),
        origin="NCCL src/graph/topo.cc, src/graph/xml.cc, src/graph/paths.cc WARN texts (2.12-2.30)",
        samples=("gpu-a:4242:4300 [0] graph/xml.cc:810 NCCL WARN ncclTopoGetSystemFromXml: system node not found in XML",),
        priority=30,
    ),
    Signature(
        id="nccl.ras.unknown_message",
        patterns=(r"RAS received unknown (?:notification|message) type",),
        cause="version_mismatch",
        role="symptom",
        confidence="low",
        title="NCCL's RAS thread got a message it does not know (peers on different NCCL versions)",
        fix="The RAS subsystems of two ranks speak different protocol versions: the ranks load different NCCL builds. Compare:\n$ python -c 'import torch; print(torch.cuda.nccl.version())'   # on every host",
        origin="NCCL src/ras/ras.cc, src/ras/peers.cc 'RAS received unknown message type (%d) from %s' (2.24-2.30)",
        samples=("gpu-a:4242:4300 [0] ras/ras.cc:510 NCCL WARN RAS received unknown message type (9) from 10.0.0.7<28029>",),
        priority=40,
    ),
)


# NCCL's INFO lines that report a failure NCCL gets past (NCCL_DEBUG=INFO): a fallback, a retry,
# a default used instead of a setting, an error of the RAS side-network. What each family means
# for the job; none is a cause on its own (the job's failure is in a WARN or in the framework).
_I = "gpu-a:4242:4300 [0] NCCL INFO "
_INFO: tuple[Signature, ...] = (
    Signature(
        id="nccl.ras.internal",
        patterns=(
            r"NCCL INFO RAS .*-- internal error\?",
            r"NCCL INFO RAS (?:failed to find a matching (?:client|ongoing collective)|unexpected error from \w+; "
            r"terminating the (?:client socket|socket connection)|continuing in spite of an unexpected error from poll|"
            r"(?:connInit|keepAlive) hash mismatch|failed to establish a client listening socket)",
            r"NCCL INFO (?:Continuing in spite of a RAS initialization error|Unexpected error from ncclSocketReady; "
            r"terminating the socket connection)",
        ),
        cause=None,
        role="context",
        confidence="medium",
        title="NCCL's RAS thread met an error on its own side-network and went on",
        fix=("RAS (NCCL 2.24+) is a monitoring thread with its own TCP connections between the job's processes; it "
             "logs its own errors and inconsistencies and keeps going: collectives are not affected. A client "
             "socket that cannot listen means `ncclras` cannot query this process (port taken):\n"
             "$ export NCCL_RAS_ADDR=localhost:28029   # another client port\n"
             "$ export NCCL_RAS_ENABLE=0               # or without RAS"),
        origin="NCCL src/ras/ras.cc, rasnet.cc, peers.cc, collectives.cc, client_support.cc INFO texts (2.24-2.30)",
        samples=(_I + "RAS overflow of newData: newIdx 3, collIdx 1, msgIdx 2, nNewData 3, needs 4 -- internal error?",
                 _I + "RAS unexpected error from rasMsgRecv; terminating the socket connection with 10.0.0.7<28028>",
                 _I + "RAS keepAlive hash mismatch from 10.0.0.7<28028> (peersHash 0x3f2a, deadPeersHash 0x0)"),
        priority=25,
    ),
    Signature(
        id="nccl.ras.timeout_warning",
        patterns=(
            r"RAS (?:connect|peer connect|keep-alive) timeout warning \(\d+s\)",
            r"RAS collective \S+ timeout warning \(\d+s\) -- \d+ responses missing",
        ),
        cause=None,
        role="context",
        confidence="medium",
        title="RAS: a peer is slow to answer (a warning before RAS's own timeout)",
        fix=("RAS waited longer than usual for a peer process on its side-network. Alone it is no failure; if the "
             "same peer is later declared DEAD, that process crashed or hung (see its log)."),
        origin="NCCL src/ras/rasnet.cc, collectives.cc INFO 'RAS ... timeout warning (%lds)' (2.24-2.30)",
        samples=(_I + "RAS keep-alive timeout warning (5s) on socket connection with 10.0.0.7<28028>",
                 _I + "RAS collective 10.0.0.7<28028>:12 timeout warning (5s) -- 2 responses missing"),
        priority=25,
    ),
    Signature(
        id="nccl.ras.routine",
        patterns=(r"RAS idle timeout \(\d+s\) on socket connection with ", r"RAS handling collReq from \S+ \(root "),
        cause=None,
        role="harmless",
        confidence="high",
        title="RAS routine: an idle side-network connection closed, a status query handled",
        fix="Nothing to do: RAS closes connections it has not used for a while and answers status queries.",
        origin="NCCL src/ras/rasnet.cc, collectives.cc INFO (2.24-2.30)",
        samples=(_I + "RAS idle timeout (300s) on socket connection with 10.0.0.7<28028>",),
        priority=25,
    ),
    Signature(
        id="nccl.ib.resiliency_event",
        patterns=(
            r"NET/IB: \w+: (?:Marking device \d+ as permanently failed|Device \d+ was already marked as failed|"
            r"Got completion with error|Transitioning QP \d+ on device \d+ to ERROR state|Tracking a new failed send "
            r"request|Done handling failed send request|Handling an error on the receiver side|The receiver side "
            r"request that got an error|The error is not fatal|No need to add this failed request|Attempting to "
            r"initiate a replay protocol|Ignoring (?:flush )?error|(?:Sender |Receiver )?[Ff]ailed to \w+|Work "
            r"completion error on recovery CQ|(?:Alive message sequence|ACK message) timeout for device|Recovery for "
            r"device \d+ failed|Port recovery (?:attempt #\d+ )?failed)",
        ),
        extract=r"[Dd]evice (?P<ib_dev_index>\d+)",
        cause="network",
        role="fault",
        confidence="medium",
        survivable=True,
        title="An IB port failed during the run; NCCL's IB resiliency is moving its traffic",
        fix=("NCCL's IB resiliency (2.28+) saw completions with errors on a NIC, marked the device failed and is "
             "replaying the traffic on the communicator's other devices. The run may go on, slower; if it failed "
             "after this, the failing port is the cause. Find it on this node:\n" + _IB_CHECK + "\n"
             "$ dmesg -T | grep -iE 'mlx5|link down' | tail"),
        origin="NCCL src/transport/net_ib/p2p_resiliency.cc, p2p_resiliency_recovery.cc INFO 'NET/IB: %s: ...' (2.28-2.30)",
        samples=(
            _I + "NET/IB: ncclIbResiliencyDevFailed: Marking device 1 as permanently failed (send comm=0x7f5c2c0a8e00)",
            _I + "NET/IB: ncclIbResiliencyHandleCompletionError: Got completion with error (devIndex=0, wc->status=(transport retry counter exceeded)12, wc->opcode=(IBV_WC_SEND)0, wc->wr_id=17, wc->qp_num=4412, wc->byte_len=0)",
        ),
        priority=60,
    ),
    Signature(
        id="nccl.ib.resiliency_single_device",
        patterns=(r"NET/IB: \w+: Resiliency is being enabled on a communicator \(comm=\S+\) with a single local device",),
        cause=None,
        role="context",
        confidence="high",
        title="IB resiliency is on, but this communicator has one NIC: nothing to fail over to",
        fix="With one local IB device a port failure still fails the job. Nothing to do unless more NICs are expected here:\n$ ibstat | grep -E 'CA |State'",
        origin="NCCL src/transport/net_ib/p2p_resiliency.cc INFO (2.28-2.30)",
        samples=(_I + "NET/IB: ncclIbResiliencyInit: Resiliency is being enabled on a communicator (comm=0x7f00) with a single local device. In case of failure there will be no device to fail-over to.",),
        priority=25,
    ),
    Signature(
        id="nccl.reg.fallback",
        patterns=(
            r"NCCL INFO rank \d+ (?:- COLLNET )?failed to (?:NET |NVLS |IPC )?register (?:userbuff|sendbuff)",
            r"NCCL INFO Failed to (?:get DMA-BUF handle|register memory with DMA-BUF).*Trying a different method",
            r"NCCL INFO Failed to multicast-bind user buffer",
            r"NCCL INFO Number of segments exceeded maximum number of supported physical segments",
            r"NCCL INFO Symmetric (?:registration|memory) is not supported",
        ),
        cause=None,
        role="context",
        confidence="high",
        title="NCCL could not register a user buffer (zero-copy, DMA-BUF, NVLS, IPC) and uses its own buffers",
        fix=("Buffer registration (ncclCommRegister, CUDA graphs, NVLS/CollNet zero-copy, symmetric memory) failed and "
             "NCCL copies through its internal buffers instead: slower, not a failure. DMA-BUF needs a 5.12+ kernel and "
             "the open GPU kernel module; NVLS needs NVSwitch with fabric manager:\n"
             "$ NCCL_DEBUG_SUBSYS=REG,ALLOC NCCL_DEBUG=INFO <your launch command>"),
        origin="NCCL src/register/*.cc, src/transport/net_ib/*.cc, src/transport/nvls.cc, src/transport/p2p.cc INFO (2.19-2.30)",
        samples=(_I + "rank 3 failed to NET register userbuff 0x7f00 buffSize 4194304 GDR flag 1",
                 _I + "Failed to register memory with DMA-BUF, error=95. Trying a different method."),
        priority=25,
    ),
    Signature(
        id="nccl.plugin.optional_unavailable",
        patterns=(
            r"NCCL INFO (?:GIN|RMA)/Plugin: Failed to (?:load external plugin|initialize any)",
            r"NCCL INFO Failed to initialize NET plugin \S+",
            r"NCCL INFO Profiler init failed with error",
            r"NCCL INFO ncclOsDl(?:open|sym)\(\S+\) failed: ",
            r"NCCL INFO ncclOsDlsym failed on \S+, ignoring",
            r"NCCL INFO Failed to open libmlx5\.so",
            r"NCCL INFO NET/IB ?: Failed to open mlx5dv symbols",
            r"NET/MLX5: Call to \w+ failed with error",
        ),
        cause=None,
        role="context",
        confidence="high",
        title="An optional NCCL plugin or library could not be loaded or started; NCCL went on without it",
        fix=("NCCL tries each network plugin in turn (an external net plugin, IB, then sockets) and loads optional "
             "libraries (mlx5dv, profiler, GIN/RMA). A NET plugin that failed to initialize is followed by the next: "
             "check which network NCCL ended up using (`Using network ...`):\n"
             "$ NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET <your launch command> 2>&1 | grep -E 'Using network|Plugin'"),
        origin="NCCL src/plugin/net.cc, gin.cc, rma.cc, profiler.cc, src/os/linux.cc, src/misc/mlx5dvsymbols.cc INFO (2.19-2.30)",
        samples=(_I + "Failed to initialize NET plugin IB",
                 _I + "NET/IB : Failed to open mlx5dv symbols. Advance features like CX-8 Direct-NIC will be disabled."),
        priority=25,
    ),
    Signature(
        id="nccl.env.ignored",
        patterns=(
            r"NCCL INFO Invalid value \S+ for \w+, using default",
            r"NCCL INFO NCCL_SOCKET_MAGIC invalid value",
            r"NCCL INFO Unable to recognize NCCL_\w+=",
            r"NCCL INFO failed to decode NCCL_\w+=.*Ignoring",
            r"NCCL INFO PARAM: type mismatch for key",
            r"NCCL INFO KV Convert to int : could not find value of",
            r"NCCL INFO NET/IB ?: Invalid NCCL_\w+ specified",
            r"NCCL INFO NET/IB: Ip address (?:mask )?'\S+' is invalid for family",
            r"NCCL INFO NCCL_COMM_ID cannot be used with more than one ncclUniqueId",
            r"Both NCCL_CTA_POLICY_ZERO and NCCL_CTA_POLICY_EFFICIENCY are set",
            r"graphStreamOrdering=\d+ with graphUsageMode=\d+ .*is not supported; falling back",
        ),
        cause=None,
        role="context",
        confidence="high",
        title="An NCCL setting could not be used; NCCL used its default instead",
        fix=("An NCCL_* variable (or nccl.conf entry) had a value NCCL could not parse, and NCCL ignored it: the run "
             "did not get the setting it asked for. Check the spelling and the value:\n$ env | grep ^NCCL_; "
             "cat /etc/nccl.conf ~/.nccl.conf 2>/dev/null"),
        origin="NCCL src/misc/param.cc, src/graph/*.cc, src/transport/net_ib/*.cc, src/misc/socket.cc, src/init.cc INFO (2.19-2.30)",
        samples=(_I + "Invalid value abc for NCCL_IB_TIMEOUT, using default 20.",
                 _I + "failed to decode NCCL_PROXY_CPUSET=0-x. Ignoring"),
        priority=25,
    ),
    Signature(
        id="nccl.topo.sysfs_fallback",
        patterns=(
            r"NCCL INFO Topology detection ?: could not read \S+",
            r"NCCL INFO ncclTopoGetXmlFromSys: could not get PCI parent for",
            r"NCCL INFO Could not get device class for NVLink target",
            r"NCCL INFO Could not get speed (?:for interface|from) \S+\. Defaulting to",
            r"NCCL INFO Failed to read refresh_switch_to\w+",
        ),
        cause=None,
        role="context",
        confidence="high",
        title="NCCL could not read part of the node's topology from /sys and assumed a default",
        fix=("A /sys file NCCL reads for the topology (PCI parents, NVLink targets, NIC speed, CPU affinity) was "
             "missing or unreadable, often in a container; NCCL assumed a default, which can cost bandwidth. Compare "
             "with what NCCL detects on the host:\n$ NCCL_TOPO_DUMP_FILE=/tmp/topo.xml NCCL_DEBUG=INFO "
             "NCCL_DEBUG_SUBSYS=GRAPH <your launch command>"),
        origin="NCCL src/graph/topo.cc, xml.cc, src/misc/socket.cc, src/transport/net_ib/init.cc INFO (2.12-2.30)",
        samples=(_I + "Could not get speed for interface eth0. Defaulting to 10 Gbps.",
                 _I + "Topology detection : could not read /sys/devices/system/node/node0/cpumap, ignoring"),
        priority=25,
    ),
    Signature(
        id="nccl.p2p.unavailable_info",
        patterns=(
            r"NCCL INFO P2P not supported between GPU\d+ and GPU\d+",
            r"NCCL INFO (?:peer query failed|Could not enable P2P) between dev \d+",
            r"NCCL INFO Legacy IPC not supported",
        ),
        cause="p2p_unsupported",
        role="context",
        confidence="low",
        title="CUDA says peer-to-peer is not available between two GPUs; NCCL uses another path",
        fix=("cudaDeviceCanAccessPeer (or the legacy IPC check) said no for this pair: NCCL goes through host memory "
             "(SHM) instead of P2P. Normal on some PCIe layouts and VMs; on an NVLink/PCIe-switch box it points to "
             "IOMMU/ACS or a driver issue:\n$ nvidia-smi topo -p2p r\n$ sudo lspci -vvv | grep -i acsctl"),
        origin="NCCL src/transport/p2p.cc p2pCanConnect, src/allocator.cc INFO (2.12-2.30)",
        samples=(_I + "Could not enable P2P between dev 0(=1b000) and dev 1(=1c000)",
                 _I + "P2P not supported between GPU0 and GPU1"),
        priority=35,
    ),
    Signature(
        id="nccl.socket.stray_connection",
        patterns=(
            r"socketFinalizeAccept(?: from \S+)?: (?:handshake receive from \S+ failed|socket magic mismatch|"
            r"wrong socket type \(peer \d+ != expected \d+).*discarding peer connection",
            r"socketFinalizeAccept: didn't receive a valid magic from \S+",
            r"socketFinalizeAccept: peer \S+ closed before magic handshake, discarding",
        ),
        cause=None,
        role="context",
        confidence="medium",
        title="NCCL dropped an incoming connection that did not speak its protocol",
        fix=("A connection reached NCCL's listening socket without NCCL's handshake or with another magic (a port "
             "scanner, a health check, a process of another job or NCCL build). NCCL discarded it and kept "
             "listening; if ranks then failed to connect, look for two jobs sharing a port or hosts."),
        origin=("NCCL src/misc/socket.cc socketFinalizeAccept INFO: `didn't receive a valid magic from %s` 2.27-2.29 "
                "(src/os/linux.cc ncclOsSocketResetAccept 2.29); `handshake receive from %s failed`, `peer %s closed "
                "before magic handshake`, `socket magic mismatch (...)`, `wrong socket type (peer %d != expected %d -- "
                "peer connected to wrong NCCL socket)`, each `discarding ...`, 2.30; WARNs 'wrong magic' / 'wrong type' "
                "that failed the connection before"),
        samples=(_I + "socketFinalizeAccept from 10.0.0.9<41234>: socket magic mismatch (peer 0x0000000000000000 != expected 0x3c1e2d4b5a697887), discarding peer connection",
                 _I + "socketFinalizeAccept from 10.0.0.9<41236>: wrong socket type (peer 2 != expected 5 -- peer connected to wrong NCCL socket), discarding peer connection",
                 _I + "socketFinalizeAccept: didn't receive a valid magic from 10.0.0.9<50112>",
                 _I + "socketFinalizeAccept: peer 10.0.0.9<50114> closed before magic handshake, discarding"),
        priority=30,
    ),
    Signature(
        id="nccl.gdr.library_unavailable",
        patterns=(
            r"Failed to open libgdrapi\.so\S* - ",
            r"ncclOsDlsym failed on gdr_\w+ - ",
            r"gdr_pin_buffer_v2 not available; GDRCopy >= \S+ required",
        ),
        cause=None,
        role="context",
        confidence="high",
        title="GDRCopy was asked for (NCCL_GDRCOPY_ENABLE=1) but its library could not be loaded; NCCL goes on without it",
        fix="libgdrapi.so is missing or too old (2.5+ for pin_buffer_v2), so NCCL does not use GDRCopy. Install GDRCopy and its kernel module, or unset NCCL_GDRCOPY_ENABLE:\n$ ls /usr/lib*/libgdrapi.so*; lsmod | grep gdrdrv",
        origin="NCCL src/misc/gdrwrap.cc wrap_gdr_symbols WARN (2.12-2.30)",
        samples=("gpu-a:4242:4300 [0] misc/gdrwrap.cc:73 NCCL WARN Failed to open libgdrapi.so.2 - libgdrapi.so.2: cannot open shared object file: No such file or directory",),
        priority=40,
    ),
    Signature(
        id="nccl.sys.eintr_retry",
        patterns=(r"(?:mkstemp: Failed to create|fallocate: Failed to extend) \S+ .*- retrying",),
        cause=None,
        role="harmless",
        confidence="high",
        title="A /dev/shm call was interrupted by a signal and retried",
        fix="Nothing to do: NCCL retries mkstemp/fallocate only on EINTR; a real failure (ENOSPC) is a WARN.",
        origin="NCCL src/os/linux.cc ncclOsShmOpen INFO (2.29-2.30; src/misc/shmutils.cc before)",
        samples=(_I + "fallocate: Failed to extend /dev/shm/nccl-Xa12b3 to 9637892 bytes, error: Interrupted system call (4) - retrying",),
        priority=30,
    ),
)

SIGNATURES: tuple[Signature, ...] = _IB + _SOCKET + _SHM + _CUDA + _P2P + _NETPLUGIN + _PROXY + _TOPO + _USAGE + _RESULT + _INTERNAL + _INFO

# Entries whose sample another entry reads (schema.py `alone_differs`): why the verdict on
# that sample is not this entry's cause.
SIGNATURES = alone_differs(SIGNATURES, {
    "nccl.result.remote_error": (
        "The ncclResult_t text as c10d wraps it; torch.nccl.error_remote reads the wrapped line (a peer failed first: its own crash) and is the more specific reading."
    ),
    "nccl.result.cuda_error": (
        "The ncclResult_t text as c10d wraps it; torch.nccl.error_unhandled_cuda reads the wrapped line (the CUDA error is the rank's own) and is the more specific reading."
    ),
    "nccl.result.invalid_usage": (
        "The ncclResult_t text as c10d wraps it; torch.nccl.error_invalid_usage reads the wrapped line, where invalid usage is most often two ranks on one GPU (device_ordinal)."
    ),
})
