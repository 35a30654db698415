"""rendezvous_hang: the ranks never all joined: store/TCPStore timeouts, N-1/N clients joined,
an unreachable MASTER_ADDR (a cross-line judgement: connect retries that never got through). What
one line says (a store error, an elastic rendezvous error, a launch command whose master address
is no address) is the catalog's."""
from __future__ import annotations

from ..facts import Facts
from ..model import Event, Finding, Support
from ..signatures import fix_text
from .common import earlier_on_same_process, earliest, evidence, hosts_of, later_on_same_process, normal_ends, ranks_of
from .signature import catalog_fix

FIX = fix_text("rendezvous_hang")


# What a process logs only once it reached the store: NCCL setting its communicator up (the
# unique id came through the store; a non-zero rank initialises NCCL's bootstrap network only
# when it creates its communicator with that id); or it got to the end of its work
# (common.normal_ends).
_PAST_THE_STORE = ("nccl_init", "nccl_bootstrap", "nccl_transport", "nccl_rings_connected")


# Lines a process may still print after its last connect retry when it gives up: its traceback
# and torchrun's failure record. A source that goes on longer than this got past the store.
_AFTER_GIVING_UP = 60


def _unresolved(facts: Facts, failed: list[Event], store_errors: list[Event]) -> list[Event]:
    """The failed connects that stand for an unreachable store. c10d logs 'failed to connect'
    as a warning on every retry while the master is still starting (and for an IPv6 address
    when IPv4 works), so a healthy multi-node run often begins with a few. They count when
    nothing later in the same source or on the same host shows the store was reached, and,
    unless the store itself failed, when the source ends with them."""
    if not failed:
        return []
    reached = facts.kind(*_PAST_THE_STORE) + normal_ends(facts)
    pending = [e for e in failed if not later_on_same_process(e, reached)]
    if store_errors:
        return pending
    # A retry after the process had set up NCCL (a store reconnect mid-run that went through):
    # the ranks had all joined.
    pending = [e for e in pending if not earlier_on_same_process(e, reached)]
    last_retry: dict[str, int] = {}
    for e in pending:
        last_retry[e.source] = max(last_retry.get(e.source, 0), e.line)
    lines = {s.name: s.lines for s in facts.sources}
    return [e for e in pending if lines.get(e.source, 0) - last_retry[e.source] <= _AFTER_GIVING_UP]


def find(facts: Facts) -> list[Finding]:
    findings: list[Finding] = []
    missing = facts.kind("store_clients_missing")
    timeouts = facts.kind("store_connect_timeout")
    attempts = facts.kind("store_connect_failed")
    # What the catalog reads as the store failing (a store timeout, a rendezvous error, the
    # unique id never fetched), besides the connect attempts themselves.
    tried = {(e.source, e.line) for e in timeouts + attempts}
    errors = [e for e in facts.kind("signature") if e.data.get("cause") == "rendezvous_hang"
              and e.data.get("role") in ("fault", "symptom") and (e.source, e.line) not in tried]
    connect = timeouts + _unresolved(facts, attempts, errors + timeouts)
    if missing:
        first = earliest(missing)
        assert first is not None
        joined, world = first.data["joined"], first.data["world"]
        findings.append(Finding(
            cause="rendezvous_hang", rule="rendezvous_hang.clients_missing",
            title=f"Only {joined} of {world} ranks joined the rendezvous",
            detail=(f"The store waited {first.data['waited_s']} s and {world - joined} rank(s) never arrived. "
                    + ("Exactly one rank is missing: look at the node that should have started it."
                       if world - joined == 1 else
                       "Check that every node was launched, with the same world size.")),
            fix=FIX, ranks=[], hosts=hosts_of(missing), evidence=evidence(missing + connect), role="fault",
            support=frozenset({Support.NAMES}),  # the store counts who joined
            culprit=None,  # the store's owner reports it; the culprits are the ranks that never came
        ))
    if connect and not missing:
        first = earliest(connect)
        assert first is not None
        errno_text = first.data.get("error")
        findings.append(Finding(
            cause="rendezvous_hang", rule="rendezvous_hang.store_unreachable",
            title=f"Cannot reach the rendezvous store at {first.data.get('address')}"
            + (f" ({errno_text})" if errno_text else ""),
            detail=("A worker could not connect to the TCPStore on the master before any NCCL communication: "
                    + ("the master address is not routable from this node. " if errno_text
                       and "route" in errno_text else "")
                    + "The master is unreachable, not listening yet, or MASTER_ADDR/PORT point at the wrong place."),
            fix=catalog_fix(facts, first, "rendezvous_hang", FIX),
            ranks=ranks_of(connect), hosts=hosts_of(connect), evidence=evidence(connect + errors),
            # No process got past the store: a client's timeout, on its own a symptom, is the fault.
            role="fault", culprit=first, support=frozenset({Support.NAMES}),
        ))
    return findings
