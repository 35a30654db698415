"""One module per log format. Each `parse(ctx, state)` returns the records of one line (or an
empty list): model.Record, identity and structure only; the reader makes them events with what
the catalog says of them. Among EXCLUSIVE parsers the first that recognises a line wins, so their
order goes from the most specific format to the most general; ALWAYS parsers see every line (a
traceback's exception line is also the allocator's report; a launch command also carries the
master address)."""
from __future__ import annotations

from collections.abc import Callable

from ..model import Record
from . import cuda, kernel, launchers, nccl, nccltests, process_exit, python_tb, torch_c10d
from .base import LineCtx, SourceState

Parser = Callable[[LineCtx, SourceState], list[Record]]

EXCLUSIVE: tuple[Parser, ...] = (
    nccl.parse,
    torch_c10d.parse,
    kernel.parse,
    process_exit.parse,
    cuda.parse,
)
ALWAYS: tuple[Parser, ...] = (python_tb.parse, launchers.parse, nccltests.parse)

# The scan gate's structural keywords (scan.py): what each parser declares it must see, whatever
# the catalog says about those lines. The catalog's own entries are the rest of the gate.
_MODULES = (nccltests, nccl, torch_c10d, kernel, process_exit, cuda, python_tb, launchers)
GATE_MEANING: tuple[str, ...] = tuple(dict.fromkeys(k for m in _MODULES for k in getattr(m, "GATE_MEANING", ())))
GATE_IDENTITY: tuple[str, ...] = tuple(dict.fromkeys(k for m in _MODULES for k in getattr(m, "GATE_IDENTITY", ())))
