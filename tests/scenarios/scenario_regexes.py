"""Reference regexes copied from docs/log-formats.md (section in each comment).

Where docs/log-formats.md describes a shape without giving a regex (torchelastic's Python log line, the
NCCL error-trail thread suffix), the regex here is written from that description.
"""
from __future__ import annotations

import re

# §1.1 NCCL debug line (INFO/TRACE/CALL form; WARN has file:line between [dev] and NCCL WARN)
NCCL_LINE = re.compile(r"(?P<pre>.*?)(?P<host>[^\s:\[\]]+):(?P<pid>\d+):(?P<tid>\d+) (?:\[(?P<dev>\d+)\] )?"
                       r"NCCL (?P<lvl>INFO|WARN|TRACE|CALL) (?P<msg>.*)$")
NCCL_WARN_LINE = re.compile(r"(?P<pre>.*?)(?P<host>[^\s:\[\]]+):(?P<pid>\d+):(?P<tid>\d+) (?:\[(?P<dev>\d+)\] )?"
                            r"(?P<loc>\S+ (?:\(\w+\) )?)NCCL WARN (?P<msg>.*)$")
WARN_DETAIL = re.compile(r"^(?P<file>[\w./+-]+):(?P<line>\d+)(?: \((?P<func>\w+)\))? NCCL WARN")
# §1.1 error trail; the thread suffix ([Proxy Thread] ...) is from docs/log-formats-launchers.md part A §1
TRAIL = re.compile(r"NCCL INFO (?P<file>[\w./+-]+):(?P<line>\d+)(?: \((?P<func>\w+)\))? -> (?P<rc>\d+)"
                   r"(?: \((?P<err>[^)]*)\))?(?: \[(?:Async thread|Progress Thread|Service thread|Proxy Thread|Proxy Service \d+)\])?$")
# §1.4 timestamp (default format), WARN only from 2.26
NCCL_TS = re.compile(r"^\[(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?\] ")
# §1.5
BANNER = re.compile(r"NCCL version (\d+)\.(\d+)\.(\d+)(\S*?)\+cuda(\d+)\.(\d+)")
INIT = re.compile(r"(?:\[Rank \d+\] )?(?:ncclCommInitRank(?:Config)? )?comm (?P<comm>0x[0-9a-f]+) rank (?P<rank>\d+) "
                  r"nranks (?P<n>\d+) cudaDev (?P<cuda>\d+) nvmlDev (?P<nvml>\d+) busId (?P<bus>[0-9a-f]+) "
                  r"commId (?P<cid>0x[0-9a-f]+) - Init (?P<what>START|COMPLETE)$")
CHANNEL = re.compile(r"Channel \d{2}/\d+ : \d+\[\d+\] -> \d+\[\d+\] (?:\[(?:send|receive)\] )?via (?:P2P/\S+|SHM/\S+|NET/\S+)$")
# §1.6
SHM_CREATE = re.compile(r"Error while (?:creating|attaching to) shared memory segment (?P<seg>\S+) \(size (?P<size>\d+)\), "
                        r"error: (?P<err>[^(]+) \((?P<errno>\d+)\)")
IB_COMPLETION = re.compile(r"NET/IB ?: Got completion from peer (?P<peer>\S+) with (?:status=(?P<st>\d+)|error (?P<st2>\d+))")
# §2.1 (a) c10 C++ log line (all three shapes)
TORCH_CPP = re.compile(r"^(?:\[rank(?P<grank>\d+)\]:)?\[?(?P<lvl>[FEWIV])(?:(?P<mmdd>\d{3,4}) (?P<hms>\d{2}:\d{2}:\d{2})"
                       r"\.(?P<frac>\d{6,9})(?: (?P<tid>\d+))?)? (?P<file>[\w.+-]+):(?P<line>\d+)\] (?P<msg>.*)$")
# §2.1 (b) torch._logging formatter: [rankR:]<L><MMDD> <HH:MM:SS>.<usec6> <pid> <relpath>:<line>] msg
ELASTIC = re.compile(r"^(?:\[rank\d+\]:)?(?P<lvl>[FEWIV])(?P<mmdd>\d{3,4}) (?P<hms>\d{2}:\d{2}:\d{2})\.(?P<usec>\d{3}000) "
                     r"(?P<pid>\d+) (?P<path>[\w./-]+\.py):(?P<line>\d+)\] (?P<msg>.*)$")
# §2.1 (c) / (d)
RANK_TB = re.compile(r"^\[rank(?P<rank>\d+)\]: ")
TEE_PREFIX = re.compile(r"^\[(?P<role>[a-z]+)(?P<lr>\d+)\]:")
# §2.2
PG_PREFIX = re.compile(r"\[PG (?:ID (?P<pgid>\d+) PG GUID (?P<guid>[^\s(\]]+)|(?P<old>[^\s(\]]+))(?: ?\((?P<desc>[^)]*)\))? "
                       r"Rank (?P<rank>\d+)\] ")
# §2.3
WORKNCCL = re.compile(r"WorkNCCL\((?:SeqNum=(?P<seq>\d+), )?OpType=(?P<op>\w+)(?:, NumelIn=(?P<nin>\d+), NumelOut=(?P<nout>\d+))?"
                      r"(?:, TensorShape=\[[^\]]*\])?, Timeout\(ms\)=(?P<tmo>\d+)\)")
WATCHDOG_PROGRESS = re.compile(r"(?:last completed (?:NCCL )?work: (?P<done>-?\d+))")
LAST_ENQUEUED = re.compile(r"last enqueued (?:NCCL )?work: (?P<enq>-?\d+)")
# §2.8
BLOCK_IDX = re.compile(r"^\[(?P<idx>\d+)\]:$")
BLOCK_TIME = re.compile(r"^\s+time\s+: (?P<t>\S+)$")
BLOCK_HOST = re.compile(r"^\s+host\s+: (?P<h>.+)$")
BLOCK_RANK = re.compile(r"^\s+rank\s+: (?P<r>\d+) \(local_rank: (?P<lr>\d+)\)$")
BLOCK_EXIT = re.compile(r"^\s+exitcode\s+: (?P<ec>-?\d+) \(pid: (?P<pid>\d+)\)$")
BLOCK_ERRFILE = re.compile(r"^\s+error_file: (?P<f>.+)$")
BLOCK_TB = re.compile(r"^\s+traceback : (?P<tb>.*)$")
AGENT_FAILED = re.compile(r"failed \(exitcode: (?P<ec>-?\d+)\) local_rank: (?P<lr>\d+) \(pid: (?P<pid>\d+)\) of binary: \S+")
# §2.9
STORE_TIMEOUT = re.compile(r"Timed out after (?P<s>\d+) seconds waiting for clients\. (?P<j>\d+)/(?P<n>\d+) clients joined\.")
SOCKET_TIMEOUT = re.compile(r"The client socket has timed out after (?P<t>\d+)(?P<unit>ms|s|min) while trying to connect to "
                            r"\((?P<host>[^,]+), (?P<port>\d+)\)")
# §2.10
OOM = re.compile(r"CUDA out of memory\. Tried to allocate (?P<req>[\d.]+ (?:GiB|MiB|KiB|bytes))(?:\. GPU (?P<dev>\d+) has a "
                 r"total capacity of (?P<tot>[\d.]+ \w+) of which (?P<free>[\d.]+ \w+) is free| \(GPU (?P<dev2>\d+); "
                 r"(?P<tot2>[\d.]+ \w+) total capacity)")
# §3.1
XID = re.compile(r"NVRM: Xid \((?:PCI:)?(?P<bdf>[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2})(?: GPU-I:(?P<gi>\d+))?"
                 r"(?: GPU-CI:(?P<ci>\d+))?\): (?P<xid>\d+), (?:pid=(?P<pid>'?<?[\w]+>?'?), (?:name=(?P<name>[^,]*), )?)?(?P<msg>.*)$")
DMESG_TS = re.compile(r"^\[\s*(?P<up>\d+\.\d{6})\] ")
