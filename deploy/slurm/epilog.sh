#!/bin/bash
# Slurm Epilog (slurm.conf: Epilog=/etc/slurm/nccl-triage-epilog.sh): when the job failed,
# upload this node's logs to nccl-triage as part of the job's incident (one per job id; every
# node of the job adds its bundle). Runs as root on each node after the job.
#
# Never fails: a non-zero Epilog would drain the node. Slurm gives the Epilog an almost empty
# environment, so settings come from a file (default /etc/nccl-triage/slurm.env):
#   NCCL_TRIAGE_SERVER=https://triage.example.com
#   NCCL_TRIAGE_TOKEN_FILE=/etc/nccl-triage/token     # an upload token (or NCCL_TRIAGE_TOKEN=)
#   NCCL_TRIAGE_CMD="python3 /opt/nccl-triage.pyz"    # or nccl-triage (pip install ./collectors)
#   NCCL_TRIAGE_LOGS="/shared/logs/%j"                # extra log folders; %j is the job id
#   NCCL_TRIAGE_UPLOAD_TIMEOUT=120                    # seconds before giving up (spooled then)
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
CONF=${NCCL_TRIAGE_CONF:-/etc/nccl-triage/slurm.env}
log() { logger -t nccl-triage-epilog -- "job ${SLURM_JOB_ID:-?}: $*" 2>/dev/null || echo "nccl-triage-epilog: $*" >&2; }

# Wait statuses (wait(2)): non-zero when the batch script or any step failed or was signalled.
failed=0
[ "${SLURM_JOB_EXIT_CODE:-0}" != "0" ] && failed=1
[ "${SLURM_JOB_DERIVED_EC:-0}" != "0" ] && failed=1
[ "$failed" = 1 ] || exit 0

if [ ! -r "$CONF" ]; then log "no $CONF: nothing uploaded"; exit 0; fi
set -a
# shellcheck disable=SC1090
. "$CONF"
set +a
if [ -z "${NCCL_TRIAGE_TOKEN:-}" ] && [ -n "${NCCL_TRIAGE_TOKEN_FILE:-}" ]; then
    NCCL_TRIAGE_TOKEN=$(cat "$NCCL_TRIAGE_TOKEN_FILE" 2>/dev/null) && export NCCL_TRIAGE_TOKEN
fi
if [ -z "${NCCL_TRIAGE_SERVER:-}" ] || [ -z "${NCCL_TRIAGE_TOKEN:-}" ]; then
    log "NCCL_TRIAGE_SERVER or the token is not set in $CONF: nothing uploaded"; exit 0
fi

# What the job wrote: its stdout/stderr files (as slurmctld expanded them) and the folders named.
paths=()
while IFS= read -r path; do
    [ -f "$path" ] && paths+=("$path")
done < <(scontrol show job "$SLURM_JOB_ID" 2>/dev/null | tr ' ' '\n' | sed -n 's/^StdOut=//p; s/^StdErr=//p' | sort -u)
for pattern in ${NCCL_TRIAGE_LOGS:-}; do
    dir=${pattern//%j/$SLURM_JOB_ID}
    [ -e "$dir" ] && paths+=("$dir")
done
if [ ${#paths[@]} -eq 0 ]; then log "failed, but no log file found to upload"; exit 0; fi

# shellcheck disable=SC2086  # NCCL_TRIAGE_CMD is a command line
timeout "${NCCL_TRIAGE_UPLOAD_TIMEOUT:-120}" ${NCCL_TRIAGE_CMD:-nccl-triage} upload \
    --job "$SLURM_JOB_ID" --host "${SLURMD_NODENAME:-$(hostname -s)}" "${paths[@]}" \
    && log "uploaded ${#paths[@]} path(s)" || log "upload failed (exit $?); the collector spools it for the next upload"
exit 0
