"""A pickle reader that builds plain data only, streaming, with bounded memory.

Flight-recorder dumps are pickles (torch's C++ pickler, protocol 2; Python's own pickler in
tests and tools, protocols 2-5). An uploaded pickle is hostile until proven otherwise:
`pickle.load` runs whatever `GLOBAL` + `REDUCE` name (`os.system` ...), and even a loader that
refuses classes can be made to build gigabytes from a few kilobytes (one memoised object
appended millions of times) or to allocate a string whose length field says 2**60.

So this is not `pickle.Unpickler` with a narrowed `find_class`: it is a small interpreter of
the opcodes that make dicts, lists, tuples, str, bytes, int, float, bool and None, and nothing
else. Every other opcode (GLOBAL, STACK_GLOBAL, REDUCE, BUILD, INST, OBJ, NEWOBJ, PERSID, EXT*,
sets, out-of-band buffers) stops the read with `RefusedPickle` naming the opcode and offset.
Every length is checked against a cap before anything is allocated, and the number of objects
held at once is capped.

What it builds is bounded too, not only what it reads: the memo lets a pickle refer to one
object many times, so 300 bytes can make a tuple of two references to a tuple of two
references ... 22 levels deep, 4 million leaves to any walk of it (`str()` of it is 50 MB). Each
streamed item, and the whole object at the end, is measured as a walk would see it (a memo
reference counted each time it is reached; shapes.expansion) against MAX_ITEM_* / MAX_TOP_*,
and refused past them.

Streaming: a caller may name one top-level key (`sink_key`, e.g. "entries") whose list items
are handed to a callback one by one as the pickle appends them, and never kept; the memo
entries of a handed-over item are dropped too. A dump of 20,000 entries is then read with the
memory of one entry plus the (shared, memoised) strings.
"""
from __future__ import annotations

import struct
from collections.abc import Callable
from typing import IO, Any

from ..shapes import OverBudget, expansion

# Caps: a flight-recorder dump holds short strings (names, file paths, dtypes) and small ints.
MAX_STR_BYTES = 4 * 1024 * 1024
MAX_INT_BYTES = 64
MAX_DEPTH = 64  # nested containers (a dump nests 5 deep)
MAX_LIVE_OBJECTS = 2_000_000  # held at once (handed-over entries are not counted)
MAX_MEMO = 2_000_000
MAX_ITEMS = 1_000_000  # in one list or dict kept (the streamed list is not kept)
CHUNK = 1 << 18
# Output budgets: what one streamed item (a dump entry) and the whole object may expand to.
# A real entry (torch 2.13 gloo/NCCL dumps, tests/engine/forensics) is at most 156 nodes and 1.7
# thousand characters, with its 15 stack frames; a 1,000-frame stack of 200-character paths
# is 7,000 nodes and 250,000 characters. The top level (pg_config, pg_status, comm state)
# holds about 10 nodes and a ranks string per process group: 4 million nodes is 400,000
# groups, a job of that many ranks lists its world in 1.5 million characters.
MAX_KEY_ITEMS = 16  # a tuple used as a dict key (a dump's keys are strings and ints)
MAX_ITEM_NODES = 200_000
MAX_ITEM_CHARS = 16 * 1024 * 1024
MAX_TOP_NODES = 4_000_000
MAX_TOP_CHARS = 256 * 1024 * 1024


class RefusedPickle(ValueError):
    """The pickle is not plain data, or is too big to be a flight-recorder dump."""


class _Mark:
    __slots__ = ()


_MARK = _Mark()


class MalformedPickle(RefusedPickle):
    """Cut off or not a pickle at all (as opposed to a pickle that asks for too much)."""


# Opcodes a plain-data pickle never needs, with what they would do.
_REFUSED = {
    b"c": "GLOBAL (imports a module attribute)",
    b"\x93": "STACK_GLOBAL (imports a module attribute)",
    b"R": "REDUCE (calls a callable)",
    b"b": "BUILD (sets object state)",
    b"i": "INST (builds a class instance)",
    b"o": "OBJ (builds a class instance)",
    b"\x81": "NEWOBJ (builds a class instance)",
    b"\x92": "NEWOBJ_EX (builds a class instance)",
    b"P": "PERSID (persistent id)",
    b"Q": "BINPERSID (persistent id)",
    b"\x82": "EXT1 (extension registry)",
    b"\x83": "EXT2 (extension registry)",
    b"\x84": "EXT4 (extension registry)",
    b"\x8f": "EMPTY_SET (a set)",
    b"\x90": "ADDITEMS (a set)",
    b"\x91": "FROZENSET (a frozenset)",
    b"\x96": "BYTEARRAY8 (a bytearray)",
    b"\x97": "NEXT_BUFFER (out-of-band buffer)",
    b"\x98": "READONLY_BUFFER (out-of-band buffer)",
}


class _Sink(list[Any]):
    """The streamed list: items go to the callback, not into the list."""

    def __init__(self, take: Callable[[Any], None]) -> None:
        super().__init__()
        self.take = take
        self.taken = 0


class PlainReader:
    def __init__(self, stream: IO[bytes], *, sink_key: str | None = None,
                 on_item: Callable[[Any], None] | None = None, max_bytes: int = 1 << 40) -> None:
        self.stream = stream
        self.buf = b""
        self.pos = 0
        self.offset = 0  # file offset of buf[0]
        self.max_bytes = max_bytes
        self.sink_key = sink_key
        self.on_item = on_item
        self.live = 0
        self.pushes = 0
        self.dropped = 0
        self.memo_next = 0  # MEMOIZE's key: the memo's size, had nothing been dropped
        self.memo: dict[int, Any] = {}
        self.memo_of: dict[int, list[int]] = {}  # id(container) -> memo keys, to drop handed-over items

    # --- input ----------------------------------------------------------------------------
    def _need(self, n: int) -> None:
        if self.pos + n <= len(self.buf):
            return
        rest = self.buf[self.pos:]
        self.offset += self.pos
        parts = [rest]
        have = len(rest)
        while have < n:
            chunk = self.stream.read(max(CHUNK, n - have))
            if not chunk:
                raise MalformedPickle(f"pickle truncated at byte {self.offset + have}")
            parts.append(chunk)
            have += len(chunk)
        self.buf = b"".join(parts)
        self.pos = 0
        if self.offset + len(self.buf) > self.max_bytes:
            raise RefusedPickle(f"pickle larger than {self.max_bytes} bytes")

    def _take(self, n: int) -> bytes:
        pos = self.pos
        if pos + n > len(self.buf):
            self._need(n)
            pos = self.pos
        self.pos = pos + n
        return self.buf[pos:pos + n]

    def _line(self) -> bytes:
        out = []
        while True:
            self._need(1)
            end = self.buf.find(b"\n", self.pos)
            if end >= 0:
                out.append(self.buf[self.pos:end])
                self.pos = end + 1
                return b"".join(out)
            out.append(self.buf[self.pos:])
            if sum(map(len, out)) > MAX_STR_BYTES:
                raise RefusedPickle("pickle text line too long")
            self.pos = len(self.buf)

    def _length(self, size: int, fmt: str, what: str, cap: int) -> int:
        (n,) = struct.unpack(fmt, self._take(size))
        if n < 0 or n > cap:
            raise RefusedPickle(f"pickle asks for a {n}-byte {what} at byte {self.offset + self.pos}; the cap is {cap}")
        return int(n)

    # --- objects --------------------------------------------------------------------------
    def _count(self) -> None:
        # Every push counts, memo references too: a few bytes of BINGET + APPENDS would
        # otherwise build millions of references. The pushes of handed-over items are returned.
        self.pushes += 1
        self.live += 1
        if self.live > MAX_LIVE_OBJECTS:
            raise RefusedPickle(f"pickle builds more than {MAX_LIVE_OBJECTS} objects: not a flight-recorder dump")

    def _memoize(self, key: int, obj: Any) -> None:
        if len(self.memo) >= MAX_MEMO and key not in self.memo:
            raise RefusedPickle("pickle memo too large")
        self.memo[key] = obj
        self.memo_next = max(self.memo_next, key + 1)
        if isinstance(obj, (list, dict, tuple)):
            self.memo_of.setdefault(id(obj), []).append(key)

    def _forget(self, obj: Any) -> None:
        """Drop the memo entries of a handed-over item and of the lists and tuples in it (its
        sizes, dtypes, group). Its dicts stay: torch memoises each stack frame once and later
        entries refer back to it; strings stay too (shared names and paths)."""
        # A walk of the shared structure, each container once (a walk of its expansion would be
        # the 2**22 steps the budget refuses), and without recursion (a list in a list in a
        # list ... 100,000 deep is a few hundred kilobytes).
        todo = [obj] if isinstance(obj, (list, dict, tuple)) else []
        seen: set[int] = set()
        while todo:
            current = todo.pop()
            if id(current) in seen:
                continue
            seen.add(id(current))
            for key in self.memo_of.pop(id(current), ()):
                self.memo.pop(key, None)
                self.dropped += 1
            for child in current.values() if isinstance(current, dict) else current:
                if isinstance(child, (list, tuple)) and id(child) in self.memo_of:
                    todo.append(child)
                elif isinstance(child, (list, tuple)) and child:
                    todo.extend(g for g in child if isinstance(g, (list, tuple)))

    def _extend(self, target: Any, items: list[Any]) -> None:
        if isinstance(target, _Sink):
            for item in items:
                target.taken += 1
                self._measure(item, MAX_ITEM_NODES, MAX_ITEM_CHARS, f"flight-recorder dump entry {target.taken}")
                self._forget(item)
                target.take(item)
        elif isinstance(target, list):
            if len(target) + len(items) > MAX_ITEMS:
                raise RefusedPickle(f"pickle builds a list of more than {MAX_ITEMS} items")
            target.extend(items)
        else:
            raise RefusedPickle(f"pickle appends to a {type(target).__name__}")

    def _measure(self, obj: Any, max_nodes: int, max_chars: int, what: str) -> None:
        try:
            expansion(obj, max_nodes=max_nodes, max_chars=max_chars, what=what)
        except OverBudget as exc:
            raise RefusedPickle(str(exc)) from None

    def load(self) -> Any:  # noqa: C901 - one dispatch per pickle opcode, as pickle's own loader
        stack: list[Any] = []
        marks: list[int] = []
        head = self._take(2)
        if head[:1] != b"\x80" or head[1] not in (2, 3, 4, 5):
            raise RefusedPickle("not a pickle of protocol 2 to 5")
        unpack_from = struct.unpack_from
        sink_depth = sink_base = item_start = -1
        while True:
            if sink_depth == len(marks) and len(stack) > sink_base + 1:
                # C++ pickles append a whole list at once: hand over the finished items now.
                items = stack[sink_base:-1]
                del stack[sink_base:-1]
                self._extend(stack[sink_base - 2], items)
                self.live -= self.pushes - 1 - item_start
                item_start = self.pushes - 1
            pos = self.pos
            if pos >= len(self.buf):
                self._need(1)
                pos = self.pos
            op = self.buf[pos:pos + 1]
            self.pos = pos + 1
            if op == b"X":  # BINUNICODE
                n = self._length(4, "<I", "string", MAX_STR_BYTES)
                stack.append(self._take(n).decode("utf-8", "surrogatepass"))
                self._count()
            elif op == b"\x8c":  # SHORT_BINUNICODE
                n = self._take(1)[0]
                stack.append(self._take(n).decode("utf-8", "surrogatepass"))
                self._count()
            elif op == b"\x8d":  # BINUNICODE8
                n = self._length(8, "<Q", "string", MAX_STR_BYTES)
                stack.append(self._take(n).decode("utf-8", "surrogatepass"))
                self._count()
            elif op == b"q":  # BINPUT
                self._memoize(self._take(1)[0], stack[-1])
            elif op == b"r":  # LONG_BINPUT
                self._memoize(unpack_from("<I", self._take(4))[0], stack[-1])
            elif op == b"\x94":  # MEMOIZE
                self._memoize(self.memo_next, stack[-1])
            elif op in (b"h", b"j"):  # BINGET, LONG_BINGET
                key = self._take(1)[0] if op == b"h" else unpack_from("<I", self._take(4))[0]
                if key not in self.memo:
                    raise MalformedPickle(f"pickle refers to memo {key} it never stored" + (
                        " (or to a list inside an entry already read: not a flight-recorder dump's layout)"
                        if self.dropped else ""))
                stack.append(self.memo[key])
                self._count()
            elif op == b"J":  # BININT
                stack.append(unpack_from("<i", self._take(4))[0])
                self._count()
            elif op == b"K":  # BININT1
                stack.append(self._take(1)[0])
                self._count()
            elif op == b"M":  # BININT2
                stack.append(unpack_from("<H", self._take(2))[0])
                self._count()
            elif op == b"\x8a":  # LONG1
                n = self._take(1)[0]
                if n > MAX_INT_BYTES:
                    raise RefusedPickle(f"pickle integer of {n} bytes")
                stack.append(int.from_bytes(self._take(n), "little", signed=True))
                self._count()
            elif op == b"\x8b":  # LONG4
                n = self._length(4, "<i", "integer", MAX_INT_BYTES)
                stack.append(int.from_bytes(self._take(n), "little", signed=True))
                self._count()
            elif op == b"G":  # BINFLOAT
                stack.append(unpack_from(">d", self._take(8))[0])
                self._count()
            elif op == b"N":
                stack.append(None)
            elif op == b"\x88":
                stack.append(True)
            elif op == b"\x89":
                stack.append(False)
            elif op == b"}":  # EMPTY_DICT
                stack.append({})
                self._count()
            elif op == b"]":  # EMPTY_LIST
                if (self.sink_key is not None and self.on_item is not None
                        and len(stack) >= 2  # noqa: PLR2004 - the sink's key and the list
                        and stack[-1] == self.sink_key and len(marks) == 1 and isinstance(stack[0], dict)):
                    stack.append(_Sink(self.on_item))
                else:
                    stack.append([])
                self._count()
            elif op == b")":  # EMPTY_TUPLE
                stack.append(())
            elif op == b"(":  # MARK
                if len(marks) >= MAX_DEPTH:
                    raise RefusedPickle("pickle nests too deep")
                opens_sink = bool(stack) and isinstance(stack[-1], _Sink)
                marks.append(len(stack))
                stack.append(_MARK)
                if opens_sink:
                    # The streamed list's items follow: each is complete when the next begins.
                    sink_depth, sink_base, item_start = len(marks), len(stack), self.pushes
            elif op in (b"e", b"u", b"t", b"l", b"d"):  # APPENDS, SETITEMS, TUPLE, LIST, DICT
                if not marks:
                    raise RefusedPickle("pickle closes a mark it never opened")
                if len(marks) == sink_depth:
                    sink_depth = -1
                    self.live -= self.pushes - item_start
                at = marks.pop()
                items = stack[at + 1:]
                del stack[at:]
                if op == b"e":
                    if not stack:
                        raise RefusedPickle("pickle appends to nothing")
                    self._extend(stack[-1], items)
                elif op == b"u":
                    if not stack or not isinstance(stack[-1], dict) or len(items) % 2:
                        raise RefusedPickle("pickle sets items on something that is not a dict")
                    target = stack[-1]
                    if len(target) + len(items) // 2 > MAX_ITEMS:
                        raise RefusedPickle(f"pickle builds a dict of more than {MAX_ITEMS} items")
                    for i in range(0, len(items), 2):
                        target[_key(items[i])] = items[i + 1]
                elif op == b"t":
                    stack.append(tuple(items))
                elif op == b"l":
                    stack.append(items)
                else:
                    if len(items) % 2:
                        raise RefusedPickle("pickle builds a dict of an odd number of items")
                    stack.append({_key(items[i]): items[i + 1] for i in range(0, len(items), 2)})
                self._count()
            elif op == b"a":  # APPEND
                item = stack.pop()
                if not stack:
                    raise RefusedPickle("pickle appends to nothing")
                self._extend(stack[-1], [item])
            elif op == b"s":  # SETITEM
                value = stack.pop()
                key = stack.pop()
                if not stack or not isinstance(stack[-1], dict):
                    raise RefusedPickle("pickle sets an item on something that is not a dict")
                stack[-1][_key(key)] = value
            elif op in (b"\x85", b"\x86", b"\x87"):  # TUPLE1..3
                n = op[0] - 0x84
                if len(stack) < n:
                    raise RefusedPickle("pickle stack underflow")
                items = stack[-n:]
                del stack[-n:]
                stack.append(tuple(items))
                self._count()
            elif op == b"C":  # SHORT_BINBYTES
                stack.append(self._take(self._take(1)[0]))
                self._count()
            elif op == b"B":  # BINBYTES
                stack.append(self._take(self._length(4, "<I", "bytes object", MAX_STR_BYTES)))
                self._count()
            elif op == b"\x8e":  # BINBYTES8
                stack.append(self._take(self._length(8, "<Q", "bytes object", MAX_STR_BYTES)))
                self._count()
            elif op == b"\x95":  # FRAME: only a hint of the next frame's size
                self._take(8)
            elif op == b"0":  # POP
                if marks and marks[-1] == len(stack) - 1:
                    marks.pop()
                stack.pop()
            elif op == b"2":  # DUP
                stack.append(stack[-1])
            elif op == b"1":  # POP_MARK
                if len(marks) == sink_depth:
                    sink_depth = -1
                at = marks.pop()
                del stack[at:]
            elif op == b".":  # STOP
                if len(stack) != 1 or marks:
                    raise RefusedPickle("pickle ends with a malformed stack")
                self._measure(stack[0], MAX_TOP_NODES, MAX_TOP_CHARS, "flight-recorder dump")
                return stack[0]
            elif op in _REFUSED:
                what = _REFUSED[op]
                if op == b"c":
                    module = self._line().decode("utf-8", "replace")
                    name = self._line().decode("utf-8", "replace")
                    what = f"GLOBAL {module}.{name} (imports a module attribute)"
                elif op == b"\x93" and len(stack) >= 2 and all(  # noqa: PLR2004 - STACK_GLOBAL: module, name
                        isinstance(x, str) for x in stack[-2:]):
                    what = f"STACK_GLOBAL {stack[-2]}.{stack[-1]} (imports a module attribute)"
                raise RefusedPickle(f"pickle uses {what} at byte {self.offset + self.pos - 1}; "
                                    "a flight-recorder dump holds only plain data")
            elif op == b"":
                raise MalformedPickle(f"pickle truncated at byte {self.offset + self.pos}")
            else:
                raise MalformedPickle(f"unknown pickle opcode {op!r} at byte {self.offset + self.pos - 1}")


def _key(key: Any) -> Any:
    if isinstance(key, (list, dict)):
        raise RefusedPickle("pickle uses an unhashable dict key")
    # Hashing a tuple walks all of it: a tuple of shared tuples 30 deep is a billion steps
    # before anything could measure it. A dump's keys are strings and numbers.
    if isinstance(key, tuple) and not (len(key) <= MAX_KEY_ITEMS and all(
            isinstance(x, (str, bytes, int, float, bool)) or x is None for x in key)):
        raise RefusedPickle("pickle uses a dict key that is a tuple of containers: not a flight-recorder dump")
    return key


def load_plain(stream: IO[bytes], *, sink_key: str | None = None,
               on_item: Callable[[Any], None] | None = None, max_bytes: int = 1 << 40) -> Any:
    """Read one pickle of plain data from `stream`; raises RefusedPickle otherwise."""
    try:
        return PlainReader(stream, sink_key=sink_key, on_item=on_item, max_bytes=max_bytes).load()
    except (IndexError, struct.error, UnicodeDecodeError, TypeError, RecursionError) as exc:
        raise MalformedPickle(f"malformed pickle ({type(exc).__name__})") from None
