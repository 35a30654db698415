"""The structural literals test_meaning_only_in_catalog.py lets through, by module, each with why
it is structure (a format's own markers and fields, output wording), not a reading of what a
message means. A literal that decides meaning belongs in a catalog entry instead.

The format parsers' literals (parsers/, demux.py, reader.py's prefix, forensics/ras.py) are the
programs' record formats the parser pulls who, when and which fields from; the kind of record a
parser emits is named after its format, and what the line means is the catalog entry that reads
the same line. Their reasons are per format below.
"""
from __future__ import annotations

_CUDA = ("the CUDA error report formats (c10/cuda CUDAException, the caching allocator's OOM text): the "
         "parser reads the error string, its cudaError_t name and the sizes; readings.cuda_class asks the "
         "catalog what the error means")
_KERNEL = ("the kernel's record formats (NVRM Xid and GPU lines, the OOM killer's kill line, AER, IOMMU "
           "faults): the parser reads the PCI id, the Xid code, the pid and name; the catalog's Xid and "
           "system entries say what they mean")
_LAUNCHERS = ("launcher and loader banners: versions, library paths and symbols (identity); the loader's "
              "and vLLM's messages are the catalog's entries")
_NCCL = ("NCCL's debug record format (host:pid:tid [dev] file:line NCCL LEVEL), its init, version, "
         "transport and environment lines (identity), and the fields a WARN carries (the call, the CUDA "
         "error, the peer and status, the ranks): the catalog says what the WARN means")
_EXITS = ("the exit and crash report formats of torchrun, DeepSpeed, mpirun, ssh, Abseil, CPython's "
          "faulthandler and the shell: which process ended, its pid, local rank, exit code and signal "
          "(identity); the catalog entries read the same lines for their meaning")
_TRACEBACK = "CPython's traceback header: the block structure the parser follows"
_C10D = ("c10d's record formats (ProcessGroupNCCL's work and watchdog records, TCPStore and socket.cpp's "
         "connect attempts, the desync report, the PG prefix): op, sequence numbers, timeouts, addresses, "
         "ranks (identity); the catalog entries read the same lines for their meaning")
_RAS = ("NCCL RAS's report format (src/ras/client_support.cc): its sections and the fields each row "
        "carries (counts, ranks, nodes, GPUs)")
_PREFIX = "a launcher's line prefix (Ray's worker tag, SGLang's TP/DP/PP tag, c10d's PG rank tag): identity"

ALLOWED: dict[str, dict[str, str]] = {
    'engine/model.py': {
        cause: "the cause vocabulary itself (docs/design.md's contract; signatures/data/causes.toml holds its traits)"
        for cause in ("rank_crash", "oom", "version_mismatch", "device_ordinal", "shm_exhausted", "hardware_fault",
                      "collective_timeout_straggler", "rendezvous_hang", "p2p_unsupported", "network", "other")
    },
    'engine/bundle.py': {
        ': no such file or directory': "bundle's own error message for a path it cannot open (output)",
        'more than ': "bundle's own limit message (output)",
    },
    'engine/forensics/match.py': {
        ' last enqueued ': "wording of the flight-recorder match's own summary (output)",
    },
    'engine/forensics/ras.py': {
        '^NCCL version (\\S+)': _RAS,
        '^\\s+(\\d+) job process(?:es are| is) considered dead': _RAS,
        '^\\s+Communicator ranks have different (status|(?:(\\w+) )?operation counts)': _RAS,
        '^\\s+Encountered (\\d+) communication timeout': _RAS,
        '^\\s+Process (\\d+) on node (\\S+) managing GPUs? (.+?)\\s*$': _RAS,
        '^\\s+Rank (\\d+)(?: has launched up to operation (\\d+)| has not launched any operations| has status ([A-Z]+)| reported (.+?))? -- (?:GPU (.+?) managed by process (\\d+) on node (\\S+)|\\[process information not found\\])\\s*$': _RAS,
        'async error ': 'wording of the RAS summary the reader writes (output)',
        'operation counts': "RAS report's section field name, read as structure",
    },
    'engine/parsers/cuda.py': {
        '(?:(?P<name>cudaError\\w+): (?P<err>[^\\n]+)|(?:returned|error|failed with) (?P<name2>cudaError\\w+))': _CUDA,
        'CUDA (?:error|driver|runtime)': _CUDA,
        'CUDA error: (?P<err>[^.\\n\\[]+?)(?:\\s*$|\\s*\\[|\\.\\s|\\s+CUDA kernel)': _CUDA,
        'CUDA out of memory\\. Tried to allocate (?P<req>[\\d.]+ (?:GiB|MiB|KiB|bytes))(?:\\. GPU (?P<dev>\\d+) has a total capacity of (?P<tot>[\\d.]+ \\w+) of which (?P<free>[\\d.]+ \\w+) is free| \\(GPU (?P<dev2>\\d+); (?P<tot2>[\\d.]+ \\w+) total capacity)?': _CUDA,
    },
    'engine/parsers/kernel.py': {
        '(?:Out of memory: )?Kill(?:ed)? process (?P<pid>\\d+) \\((?P<name>[^)]+)\\)|oom-kill:.*task=(?P<name2>[^,]+),pid=(?P<pid2>\\d+)': _KERNEL,
        '(?P<dev>[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\\.\\d)?:? ?(?:AMD-Vi: Event logged \\[(?P<amd>IO_PAGE_FAULT|[A-Z_]+)|DMAR: \\[?(?:DRHD: handling fault|DMA \\w+\\]? Request)|iommu fault|IOMMU fault)': _KERNEL,
        'AER: (?P<sev>Uncorrected|Corrected|Multiple)[^:]*error': _KERNEL,
        'NVRM: GPU (?:at PCI:)?(?P<bdf>[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2})\\b': _KERNEL,
        "NVRM: Xid \\((?:PCI:)?(?:(?P<bdf>[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2})|[^)\\s]*?)(?:\\.\\d)?(?: GPU-I:(?P<gi>\\d+))?(?: GPU-CI:(?P<ci>\\d+))?\\): (?P<xid>\\d+), (?:pid=(?P<pid>'?<?[\\w]+>?'?), (?:name=(?P<name>[^,]*), )?)?(?P<msg>.*)$": _KERNEL,
        '[Oo]ut of memory': _KERNEL,
        'fallen off': _KERNEL,
    },
    'engine/parsers/launchers.py': {
        '(?P<lib>lib\\w+\\.so[\\w.]*): (?:cannot open shared object file|No such file or directory)': _LAUNCHERS,
        'CUDA [Vv]ersion': _LAUNCHERS,
        'Failed to load NCCL library from (?P<lib>\\S+?)\\s?\\.?(?:\\s|$)|Failed to import NCCL library': _LAUNCHERS,
        '[Dd]river [Vv]ersion': _LAUNCHERS,
        "name '(?P<sym>nccl\\w+)' is not defined": _LAUNCHERS,
        'undefined symbol: (?P<sym>\\w*nccl\\w*)': _LAUNCHERS,
        'cuda version': _LAUNCHERS,
        'driver version': _LAUNCHERS,
        'nccl library': _LAUNCHERS,
        'not defined': _LAUNCHERS,
    },
    'engine/parsers/nccl.py': {
        '(?:\\[(?P<dev>\\d+)\\] )?(?P<loc>[\\w./+-]+\\.(?:cc|c|h|cu|cpp):\\d+)(?: \\((?P<func>\\w+)\\))? (?:NCCL )?WARN (?P<msg>.*)$': _NCCL,
        '(?:\\[Rank \\d+\\] )?(?:(?P<fn>nccl\\w+) )?comm (?P<comm>0x[0-9a-f]+) rank (?P<rank>\\d+) nranks (?P<nranks>\\d+) cudaDev (?P<dev>\\d+)(?: nvmlDev (?P<nvml>\\d+))? busId (?P<bus>[0-9a-f]+)(?P<rest>.*?)- (?P<phase>Init START|Init COMPLETE|Abort COMPLETE|Destroy COMPLETE)': _NCCL,
        '(?P<var>NCCL_\\w+) set by environment to (?P<val>.*?)\\.?$': _NCCL,
        'Call to (?P<fn>\\w+)': _NCCL,
        "Cuda failure (?:(?P<code>\\d+) )?'(?P<err>[^']+)'": _NCCL,
        'Init (?:COMPLETE|START)': _NCCL,
        'NCCL (?:INFO|WARN|TRACE|CALL) ': _NCCL,
        'NCCL WARN [A-Z]': _NCCL,
        'NCCL version (?P<v>\\d+\\.\\d+\\.\\d+)(?P<suffix>\\S*?)(?:\\+cuda(?P<cuda>\\d+\\.\\d+))?(?:\\s|$|,)': _NCCL,
        'NET/IB ?: (?:Using|No device)': _NCCL,
        'Using network (?P<net>.+?)\\s*$': _NCCL,
        '\\[Proxy Service (?P<svc>\\d+)\\] Failed to execute operation (?P<op>\\w+) from rank (?P<rank>\\d+), retcode (?P<rc>\\d+)': _NCCL,
        'completion from peer (?P<peer>\\S+) with (?:error|status=?) ?(?P<status>\\w+)(?:\\((?P<code>\\d+)\\))?': _NCCL,
        'rank (?P<a>\\d+) and rank (?P<b>\\d+) both on CUDA device (?P<bus>[0-9a-f]+)': _NCCL,
        'wrong type (?P<got>\\d+) != (?P<want>\\d+)': _NCCL,
        'NCCL error': _NCCL,
        'NCCL version': _NCCL,
        'No device found': _NCCL,
        'Using network': _NCCL,
        'set by environment': _NCCL,
        'shared memory': _NCCL,
    },
    'engine/parsers/process_exit.py': {
        'Caught signal (?P<num>\\d+) \\((?P<what>[^)]*)\\)': _EXITS,
        'Error executing method (?P<method>\\w+)\\. This might cause deadlock': _EXITS,
        'Fatal Python error: (?P<what>Floating point exception|Illegal instruction)': _EXITS,
        'Fatal Python error: (?P<what>Segmentation fault|Bus error|Aborted)|Segmentation fault(?: \\(core dumped\\))?|Bus error \\(core dumped\\)': _EXITS,
        'Killing subprocess (?P<pid>\\d+)': _EXITS,
        'Sending process (?P<pid>\\d+) closing signal (?P<sig>SIG\\w+)': _EXITS,
        'Signal (?P<num>\\d+) \\((?P<name>SIG\\w+)\\) received by PID (?P<pid>\\d+)': _EXITS,
        'Worker \\w+ pid (?P<pid>\\d+) died, exit code: (?P<code>-?\\d+)': _EXITS,
        '[Cc]losing signal': _EXITS,
        '[Ee]xit(?:ed)? (?:code|status|with)': _EXITS,
        '\\*\\*\\* (?:(?P<name>SIG[A-Z]+)|Signal (?P<num>\\d+)) received at time=\\d+': _EXITS,
        'exits with return code = (?P<code>-?\\d+)': _EXITS,
        'local_rank (?P<lrank>\\d+) FAILED with no error file': _EXITS,
        'ssh exited with exit code (?P<code>\\d+)': _EXITS,
        "terminate called after throwing an instance of '(?P<type>[^']+)'": _EXITS,
        'Bus error': _EXITS,
        'Received sigquit from a child process': _EXITS,
        'Root Cause': _EXITS,
        'Root Cause (first observed failure)': _EXITS,
        'Segmentation fault': _EXITS,
        'core dumped': _EXITS,
        'death signal': _EXITS,
        'exits with': _EXITS,
        'return code': _EXITS,
        'terminate called': _EXITS,
    },
    'engine/parsers/python_tb.py': {
        'Traceback \\(most recent': _TRACEBACK,
        'Traceback \\(most recent call last\\):': _TRACEBACK,
    },
    'engine/parsers/torch_c10d.py': {
        '(?:failure detected by watchdog at work sequence id: (?P<seq1>\\d+) PG status: last enqueued work: (?P<enq1>\\d+), last completed work: (?P<done1>-?\\d+)|(?:Exception \\(either an error or timeout\\) detected by watchdog at work|Timeout at NCCL work): (?P<seq2>\\d+), last enqueued NCCL work: (?P<enq2>-?\\d+), last completed NCCL work: (?P<done2>-?\\d+)|NCCL Work update periodically: last enqueued NCCL work: (?P<enq3>-?\\d+), last completed NCCL work: (?P<done3>-?\\d+))': _C10D,
        '(?:to host|server socket on|No socket on) \\(?(?P<addr>[^\\s),]+(?:, \\d+)?)\\)?': _C10D,
        'CUDA error: (?P<err>[^.\\n\\[]+)': _C10D,
        'Collective WorkNCCL\\(.*?\\) raised the following async exception: (?P<what>.*)$': _C10D,
        'Detected mismatch between collectives on ranks\\. Rank (?P<a>\\d+) is running collective: (?P<fa>.*?), but Rank (?P<b>\\d+) is running collective: (?P<fb>.*)': _C10D,
        'NCCL [Ee]rror': _C10D,
        'NCCL [Ee]rror(?: in: (?P<where>\\S+?))?(?::? (?P<code>\\d+))?[,:] (?P<reason>[^,]+?)(?:\\s*\\(run with[^)]*\\))?(?:, NCCL version (?P<version>[\\w.+]+))?\\s*$': _C10D,
        'NCCL communicator was aborted on rank (?P<rank>\\d+)': _C10D,
        'Received a dump signal due to a collective timeout from (?:this local rank|rank (?P<rank>\\d+))': _C10D,
        'Timed out after (?P<s>\\d+) seconds waiting for clients\\. (?P<joined>\\d+)/(?P<world>\\d+) clients joined': _C10D,
        'WorkNCCL\\((?:SeqNum=(?P<seq>\\d+), )?OpType=(?P<op>\\w+)(?:, NumelIn=(?P<nin>\\d+)(?:, Nume(?:lOut=(?P<nout>\\d+))?)?)?(?:, TensorShape=\\[[^\\]]*\\])?(?:, Timeout\\(ms\\)=(?P<tmo>\\d+))?': _C10D,
        '[Ll]ast (?:error|completed|enqueued)': _C10D,
        '[Mm]ismatch between collectives': _C10D,
        '[Tt]imeout at': _C10D,
        '[Ww]atchdog thread terminated with exception: (?P<what>.*)$': _C10D,
        '\\[PG (?:ID (?P<pgid>\\d+) PG GUID (?P<guid>[^\\s(\\]]+)|(?P<old>[^\\s(\\]]+))(?: ?\\((?P<desc>[^)]*)\\))? Rank (?P<rank>\\d+)\\]': _C10D,
        'client socket has failed to connect to (?:any network address of )?\\(?\\[?(?P<addr>[^)\\]]+)\\]?\\)?.*?(?:\\(errno: (?P<errno>\\d+) - (?P<err>[^)]+)\\))?': _C10D,
        'client socket has timed out after (?P<t>\\d+)(?P<unit>ms|s|min) while trying to connect to \\(?(?P<addr>[^)]+)\\)?': _C10D,
        'has (?:failed to connect|timed out)': _C10D,
        'ran for (?P<ms>\\d+) milliseconds': _C10D,
        "ranks \\[(?P<ranks>[\\d, ]+)\\] are the lagging ranks|\\[(?P<ranks2>[\\d, ]+)\\] joined but didn't finish collective #(?P<seq>\\d+)": _C10D,
        'remote error detected from rank: (?P<rank>\\d+)': _C10D,
        'retrying \\(try=': _C10D,
        'watchdog got stuck for (?P<s>\\d+) seconds|Heartbeat monitor timed out': _C10D,
        ', will retry': _C10D,
        '- retrying (try=': _C10D,
        'Caught collective operation timeout': _C10D,
        'Last error:': _C10D,
        'NCCL Error': _C10D,
        'NCCL communicator': _C10D,
        'NCCL error': _C10D,
        'Watchdog caught': _C10D,
        'client socket has failed to connect': _C10D,
        'clients joined': _C10D,
        'dump signal': _C10D,
        "joined but didn't finish": _C10D,
        'remote error': _C10D,
        'timed out': _C10D,
        'timed out in blocking wait': _C10D,
        'will retry': _C10D,
    },
    'engine/rules/collective_timeout_straggler.py': {
        ' failed in ': "wording of the rule's finding detail (output)",
        'a collective': "wording of the rule's finding title when the op is unknown (output)",
    },
    'engine/rules/common.py': {
        'Abort COMPLETE': "a phase value of NCCL's communicator lifecycle (init.cc), as the NCCL parser records it (identity)",
    },
    'engine/rules/flight_recorder.py': {
        ' Process group ': "wording of the rule's finding detail (output)",
    },
    'engine/rules/ncclras.py': {
        ' considered dead': "wording of the rule's finding title (output)",
        ' managing GPU ': "the evidence line the rule writes in RAS's own words (output)",
        ' on node ': "the evidence line the rule writes in RAS's own words (output)",
        'DEAD: Process ': "the evidence line the rule writes in RAS's own words (output)",
    },
    'engine/rules/network.py': {
        'a peer': "wording of the rule's finding detail when the peer is unknown (output)",
    },
    'engine/rules/oom.py': {
        'oom': "the CUDA error class readings.cuda_class gives an OOM (the catalog's word for it), not the cause",
    },
    'engine/rules/rank_crash.py': {
        'other': 'a CUDA error class (readings.cuda_class: app, app_or_hw, other, driver), not the cause',
        ' failed with ': "wording of the rule's finding detail (output)",
        'CUDA error: ': "wording of the rule's finding detail, quoting the error the CUDA parser read (output)",
        'a signal': "wording of the rule's finding detail when the signal is unknown (output)",
        'exit code ': "wording of the rule's finding detail (output)",
    },
    'engine/rules/signature.py': {
        'the process': "wording a fix reads where the logs name no process to fill it with (output)",
        'the rank': "wording a fix reads where the logs name no rank to fill it with (output)",
    },
    'engine/rules/rendezvous_hang.py': {
        'rendezvous_hang': 'the cause rule collects the lines the catalog reads as its own cause (as read_as does)',
    },
    'engine/scan.py': {
        '[Tt]ime ?out': "the gate's ONCE sampling keywords: which unknown lines to look at, not what they mean",
        'NCCL WARN': "the gate's ONCE sampling keywords: which unknown lines to look at, not what they mean",
    },
    'engine/timeline.py': {
        ' failed at ': "wording of a timeline marker's label (output)",
    },
    'engine/ranking.py': {
        'signature.': "the rule-id namespace of catalog findings (signature.<entry id>): which findings are the catalog's, not what one means",
    },
    'engine/verdict.py': {
        'signature.': "the rule-id namespace of catalog findings (signature.<entry id>): which findings are the catalog's, not what one means",
    },
    'fleet/fingerprint.py': {
        '\\bNET/(IB|Socket|AWS Libfabric|OFI|[A-Za-z]+)\\b': "NCCL's transport name after `NET/` (identity: which transport), grouped on, never decides",
        **dict.fromkeys((
            '/dev/shm/[^\\s,)\'\\"]+',
            '\\b(pid|tid|rank|local_rank|device|dev|cudaDev|nvmlDev)\\s*[=:]?\\s*\\d+',
            '\\bGPU-[0-9a-f-]+',
            '\\b\\d+(?:\\.\\d+)?\\s*(?:[KMGT]i?B|bytes?)\\b',
            '^(?:\\[(?:default|rank)\\d+\\]:\\s*)+',
        ), "the message family's placeholders: what changes from one occurrence of a line to the next (a shm "
           "segment's name, a pid or device number, a GPU UUID, a size, a launcher's rank prefix) is replaced "
           "so that the same fault groups again; the family is compared, never read for what it means"),
    },
    'fleet/management/commands/webhook.py': {
        ' for team ': "the command's own output wording",
    },
    'fleet/outbound.py': {
        'timed out (': "the webhook sender's own delivery error text (output)",
    },}
