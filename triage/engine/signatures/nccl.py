"""Signatures of messages NCCL prints (WARN lines, INFO lines that matter, ncclResult_t texts),
drawn from NVIDIA/nccl `src/` from 2.4 to the newest release (see schema.py for the fields)."""
from __future__ import annotations

from .schema import Signature

SIGNATURES: tuple[Signature, ...] = (
    Signature(
        id="nccl.ib.completion_error",
        patterns=(r"NET/IB ?: Got completion from peer \S+ with (?:error|status)",),
        extract=r"from peer (?P<peer>\S+) with (?:error|status=?) ?(?P<status>\w+)",
        cause="network",
        role="fault",
        confidence="high",
        title="InfiniBand/RoCE work completion error",
        fix=(
            "A work request to peer {peer} failed with status {status} (12 = retry exceeded: the "
            "link or the remote HCA stopped answering). Check the ports and counters on both ends:\n"
            "$ ibstat; ibv_devinfo -v | grep -E 'state|link_layer'\n"
            "$ perfquery -x   # symbol/link errors, port_rcv_errors"
        ),
        origin="NCCL src/transport/net_ib.cc (ncclIbTest), 2.4-2.30; ibv_wc_status",
        samples=(
            "node1:24141:24296 [2] transport/net_ib.cc:978 NCCL WARN NET/IB : Got completion from peer 10.0.0.2<40000> with error 12, opcode 0, len 0, vendor err 129 (Recv)",
        ),
        priority=80,
    ),
)
