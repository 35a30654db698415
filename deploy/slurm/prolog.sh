#!/bin/bash
# Slurm Prolog (slurm.conf: Prolog=/etc/slurm/nccl-triage-prolog.sh, PrologFlags=Alloc): may
# this node take the job? `nccl-triage gate` asks the dashboard whether the host is recommended
# for drain and runs the smoke all-reduce. A non-zero exit makes Slurm drain the node and
# requeue the job elsewhere, which is the point; the gate itself bounds its time (--timeout).
# Settings: the same file as the epilog (/etc/nccl-triage/slurm.env), plus
#   NCCL_TRIAGE_GATE_ARGS="--timeout 60"     # e.g. --no-smoke, --strict, --backend nccl
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
CONF=${NCCL_TRIAGE_CONF:-/etc/nccl-triage/slurm.env}
[ -r "$CONF" ] || exit 0   # not configured: never block jobs
set -a
# shellcheck disable=SC1090
. "$CONF"
set +a
if [ -z "${NCCL_TRIAGE_TOKEN:-}" ] && [ -n "${NCCL_TRIAGE_TOKEN_FILE:-}" ]; then
    NCCL_TRIAGE_TOKEN=$(cat "$NCCL_TRIAGE_TOKEN_FILE" 2>/dev/null) && export NCCL_TRIAGE_TOKEN
fi
# shellcheck disable=SC2086
${NCCL_TRIAGE_CMD:-nccl-triage} gate --host "${SLURMD_NODENAME:-$(hostname -s)}" ${NCCL_TRIAGE_GATE_ARGS:---timeout 60}
