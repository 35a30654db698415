"""What a structured reader takes from a document it did not write: values of the contract's
type and size, or nothing; and how much a document expands to when it is walked.

A reader's input is bounded (archive caps, the pickle reader's caps), but what it *makes* from
it need not be: a pickle's memo lets a few hundred bytes name the same tuple twice at every one
of 22 levels, 4 million leaves once walked, and one `str()` of it is 50 MB of text. So a
reader measures the documents it reads (`expansion`: every path counted, a memo reference once
each time it is reached, as any walk of it would) against a budget sized from real dumps, and
takes each field only in its contract's shape (`text`, `integer`, `number`): a process-group
name is a short string, never the text of a tree.
"""
from __future__ import annotations

import re
from typing import Any

# Sizes from what the programs write (and far above what real files hold).
MAX_NAME = 1024  # a name: process group, host (253), dtype, op, GPU bus id, version
MAX_PATH = 4096  # a file path in a stack frame (PATH_MAX)
MAX_DIGITS = 20  # an integer written as text: 64-bit
INT64 = 1 << 63
_DECIMAL = re.compile(r"-?[0-9]+")


class OverBudget(ValueError):
    """A document expands past its reader's budget (see `expansion`)."""


def text(value: Any, limit: int = MAX_NAME) -> str | None:
    """`value` when it is a string of at most `limit` characters, else None."""
    return value if isinstance(value, str) and len(value) <= limit else None


def integer(value: Any) -> int | None:
    """A 64-bit integer, or its decimal text (the recorder writes some ids as strings); not a
    bool, not a float, not a 4 MB string of digits."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if -INT64 <= value < INT64 else None
    if isinstance(value, str) and len(value) <= MAX_DIGITS and _DECIMAL.fullmatch(value):
        return integer(int(value))
    return None


def number(value: Any) -> int | float | None:
    """An int (64-bit) or a float, not a bool."""
    if isinstance(value, float):
        return value
    return integer(value) if not isinstance(value, str) else None


def expansion(root: Any, *, max_nodes: int, max_chars: int, what: str) -> tuple[int, int]:
    """(nodes, characters of text) of `root` walked as a tree: a container reached by two paths
    counts twice, as `str()`, `json.dumps` or any copy of it would make it. Computed over the
    shared structure (each container visited once, its totals kept), so the cost is what the
    document holds, not what it expands to. Raises OverBudget past either limit, or when the
    document contains itself (a walk would never end). A dict's keys count as one node each
    and their text (the readers' keys are strings and numbers)."""
    if not isinstance(root, (list, tuple, dict)):
        return _checked((1, len(root) if isinstance(root, (str, bytes)) else 0), max_nodes, max_chars, what)
    totals: dict[int, tuple[int, int]] = {}
    open_ids = {id(root)}
    stack: list[list[Any]] = [_frame(root)]  # [container, iterator over its values, nodes, chars]
    while True:
        frame = stack[-1]
        nodes, chars = frame[2], frame[3]
        for kid in frame[1]:
            kind = type(kid)
            if kind is str or kind is bytes:
                nodes += 1
                chars += len(kid)
            elif kind is list or kind is tuple or kind is dict or isinstance(kid, (list, tuple, dict)):
                known = totals.get(id(kid))
                if known is None:
                    if id(kid) in open_ids:
                        raise OverBudget(f"{what}: the structure contains itself (a walk of it would never end); "
                                         "refused")
                    frame[2], frame[3] = nodes, chars
                    open_ids.add(id(kid))
                    stack.append(_frame(kid))
                    break
                nodes += known[0]
                chars += known[1]
            else:
                nodes += 1
            if nodes > max_nodes or chars > max_chars:
                _checked((nodes, chars), max_nodes, max_chars, what)
        else:
            stack.pop()
            obj = frame[0]
            open_ids.discard(id(obj))
            totals[id(obj)] = (nodes, chars)
            if not stack:
                return _checked((nodes, chars), max_nodes, max_chars, what)
            parent = stack[-1]
            parent[2] += nodes
            parent[3] += chars
            if parent[2] > max_nodes or parent[3] > max_chars:
                _checked((parent[2], parent[3]), max_nodes, max_chars, what)


def _frame(obj: Any) -> list[Any]:
    if isinstance(obj, dict):
        return [obj, iter(obj.values()), 1 + len(obj), sum(len(k) for k in obj if isinstance(k, (str, bytes)))]
    return [obj, iter(obj), 1, 0]


def _checked(total: tuple[int, int], max_nodes: int, max_chars: int, what: str) -> tuple[int, int]:
    nodes, chars = total
    if nodes > max_nodes:
        raise OverBudget(f"{what}: shared structure expands past {max_nodes} nodes "
                         "(a memo reference counted each time it is expanded); refused")
    if chars > max_chars:
        raise OverBudget(f"{what}: its text expands past {max_chars} characters; refused")
    return total


class LeftOut:
    """Counts the fields a reader left out because they were not of their type or size, for
    one note on the incident (not one per value)."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}

    def add(self, field: str) -> None:
        self.counts[field] = self.counts.get(field, 0) + 1

    def take(self, value: Any, field: str, limit: int = MAX_NAME) -> str | None:
        """`text(value)`; a value present but of the wrong shape is counted."""
        out = text(value, limit)
        if out is None and value is not None:
            self.add(field)
        return out

    def note(self, source: str, reader: str) -> str | None:
        if not self.counts:
            return None
        fields = ", ".join(f"{k} ×{n}" if n > 1 else k for k, n in sorted(self.counts.items()))
        return f"{source}: {reader}: values not of their type or size left out ({fields})"
