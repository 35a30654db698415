"""network: InfiniBand/RoCE completion errors, peers that cannot be reached, no usable interface;
and, at low confidence, a peer connection that dropped with nothing else to explain it. What a
single line means (a transport of the wrong type, an error trail from the network code) is the
catalog's (nccl.socket.wrong_type, nccl.trail.network_error)."""
from __future__ import annotations

from ..facts import Facts, short_host
from ..model import Event, Evidence, Finding, Support
from ..signatures import BY_ID, fix_text
from .common import earliest, evidence, hosts_of, nccl_lines, ranks_of, read_as, upper_first, where
from .rank_crash import fault_elsewhere
from .signature import catalog_fix

FIX_IB = fix_text("network.ib")
FIX_SOCKET = fix_text("network.socket")
FIX_PEER = fix_text("network.peer")
FIX_IB_UNUSED = fix_text("network.ib_unused")


IBV_WC_RETRY_EXC_ERR = 12  # ibverbs enum ibv_wc_status

def find(facts: Facts) -> list[Finding]:
    findings: list[Finding] = []
    lines = nccl_lines(facts)
    # An IB error the parser sees the shape of: a work completion's status, or the verbs call
    # that failed. Other IB lines (an async event, a missing device) are the catalog's finding.
    ib = [e for e in read_as(facts, lines, "network", fabric="ib") if "status" in e.data or "fn" in e.data]
    # A connect the catalog reads as another cause (a refused port: the peer is not listening
    # yet or died; a UNIX-domain socket between local ranks) is that cause's.
    connect = read_as(facts, lines, "network", roles=("fault",), fabric="socket")
    if ib:
        first = earliest(ib)
        assert first is not None
        status = first.data.get("status")
        # Flush (5) and retry-exceeded (12) are also what a rank sees when its peer died:
        # with a real fault on another rank, this is more likely a symptom than the cause.
        secondary = status in (5, 12) and fault_elsewhere(facts, first, "network")
        findings.append(Finding(
            cause="network", rule="network.ib_completion_error",
            title=f"InfiniBand/RoCE error on {where(facts, first)}"
            + (f": completion status {status}" if status is not None else ""),
            detail=(f"NCCL's IB transport got a failed work completion from peer {first.data.get('peer')}"
                    + (" (status 12 = transport retries exhausted: link down, peer unreachable over RDMA)"
                       if status == IBV_WC_RETRY_EXC_ERR else "")
                    + ". Init had completed, so the RDMA path between the nodes is broken."),
            fix=catalog_fix(facts, first, "network", FIX_IB),
            ranks=ranks_of(ib), hosts=hosts_of(ib), evidence=evidence(ib),
            role="symptom" if secondary else None,
            culprit=first, support=frozenset({Support.EXPLAINED} if secondary else ()),
        ))
    if connect:
        first = earliest(connect)
        assert first is not None
        # A refused or failed connect is also what a rank gets when the peer it dials has died:
        # with that peer's own fault in the logs, this is its echo.
        secondary = fault_elsewhere(facts, first, "network")
        findings.append(Finding(
            cause="network", rule="network.cannot_connect",
            title=f"{upper_first(where(facts, first))} cannot reach its peers ({_what(facts, first)})",
            detail=f"NCCL could not connect to {first.data.get('peer') or 'a peer'}: wrong NCCL_SOCKET_IFNAME, a "
                   f"firewall, or the peer is not listening.",
            fix=catalog_fix(facts, first, "network", FIX_SOCKET),
            ranks=ranks_of(connect), hosts=hosts_of(connect), evidence=evidence(connect),
            role="symptom" if secondary else None, culprit=first,
            # More than one failed connect agrees; a single one is all there is.
            support=frozenset({Support.EXPLAINED} if secondary else ()) | frozenset(
                {Support.ALONE} if len(connect) == 1 else {Support.CORROBORATED}),
        ))
    if not findings:
        findings.extend(_dropped_peer(facts))
    findings.extend(_ib_unused(facts))
    return findings


def _what(facts: Facts, ev: Event) -> str:
    """The catalog's title for the line's meaning, as a parenthesis."""
    meaning = facts.meaning_of(ev)
    sig = BY_ID.get(str(meaning.data.get("sig"))) if meaning is not None else None
    return sig.title[:1].lower() + sig.title[1:] if sig is not None else "connect failed"


def _ib_unused(facts: Facts) -> list[Finding]:
    """The host has active InfiniBand ports, yet NCCL found no IB device and fell back to sockets."""
    fallback = facts.kind("nccl_ib_missing") + [e for e in facts.kind("nccl_net")
                                                if str(e.data.get("net", "")).startswith("Socket")]
    if not fallback:
        return []

    out: list[Finding] = []
    for name, doc in facts.docs.snapshots:
        host = short_host((doc.get("host") or {}).get("hostname"))
        ports = [p for p in ((doc.get("host") or {}).get("infiniband") or [])
                 if str(p.get("state", "")).upper().endswith("ACTIVE")]
        on_host = [e for e in fallback if e.host == host]
        if not ports or not on_host:
            continue
        devices = ", ".join(sorted({f"{p.get('device')}:{p.get('port')}" for p in ports}))
        out.append(Finding(
            cause="network", rule="network.ib_unused",
            title=f"{host} has active InfiniBand ports ({devices}) but NCCL used sockets",
            detail="NCCL reported no usable IB device and fell back to TCP sockets although the host's IB ports are "
                   "up: the "
                   "container lacks /dev/infiniband or the verbs libraries, or NCCL_IB_DISABLE/NCCL_IB_HCA exclude "
                   "them. "
                   "Sockets are far slower and time out under load.",
            fix=FIX_IB_UNUSED,
            hosts=[host] if host else [], ranks=ranks_of(on_host),
            evidence=evidence(on_host, 4) + [Evidence(name, 1, f"infiniband: {devices} ACTIVE")],
            role="context",
            support=frozenset({Support.POINTS, Support.CORROBORATED}),  # the snapshot's ports and NCCL's fallback
        ))
    return out


def _dropped_peer(facts: Facts) -> list[Finding]:
    lines = nccl_lines(facts)
    drops = read_as(facts, lines, "network", roles=("symptom",), fabric="socket")
    closed = read_as(facts, lines, "rank_crash", roles=("symptom",), fabric="socket")
    if not drops and closed:
        first = earliest(closed)
        assert first is not None
        return [Finding(
            cause="rank_crash", rule="rank_crash.peer_closed",
            title="A peer process closed its connection: it probably died first",
            detail="'Connection closed by remote peer' is what a rank sees when the process on the other end exits. "
                   "That process's own log is not in this bundle, so which rank died, and why, is unknown.",
            fix=FIX_PEER, ranks=ranks_of(closed), hosts=hosts_of(closed), evidence=evidence(closed), role="symptom",
            culprit=None, support=frozenset({Support.AMBIGUOUS}),  # which peer, and why, is not in the bundle
        )]
    if not drops:
        return []
    first = earliest(drops)
    assert first is not None
    return [Finding(
        cause="network", rule="network.peer_dropped",
        title=f"Connection to a peer dropped ({_what(facts, first)})",
        detail="A socket to a peer was reset or broke. With no crash visible in these logs it cannot be told apart "
               "from a peer "
               "process dying; the peer's own log is needed.",
        fix=FIX_PEER, ranks=ranks_of(drops), hosts=hosts_of(drops), evidence=evidence(drops), culprit=first,
        support=frozenset({Support.AMBIGUOUS}),  # a network fault and a peer dying look alike here
    )]
