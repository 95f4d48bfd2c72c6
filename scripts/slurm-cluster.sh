#!/usr/bin/env bash
# A single-node Slurm cluster on loopback, for tests and benchmarks that drive real Slurm clients.
#
#   slurm-cluster.sh start DIR   writes a munge key, slurm.conf and state under DIR (created if
#                                missing), starts munged, slurmctld and slurmd, waits until the node
#                                is idle, and prints KEY=VALUE lines a client needs (SLURM_CONF=...).
#   slurm-cluster.sh stop DIR    stops the daemons started in DIR (by their pid files) and waits
#                                for them; doing it twice, or on a DIR never started, is fine.
#
# Needs root and Debian's slurm-wlm and munge. Ports are picked at random among the free ones so
# that clusters started at once by different processes do not collide. No cgroups are used.
set -euo pipefail

readonly k_wait_seconds=30
readonly k_partition=culprit

die() {
  echo "slurm-cluster: $*" >&2
  exit 1
}

usage() {
  echo "usage: slurm-cluster.sh start|stop DIR" >&2
  exit 2
}

# shellcheck source=ports.sh
source "$(dirname "${BASH_SOURCE[0]}")/ports.sh"

# Memory slurmd will find, less a margin, in MiB; slurmd drains a node configured with more.
real_memory_mib() {
  local total_kib
  total_kib=$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo)
  echo $((total_kib * 9 / 10 / 1024))
}

write_conf() {
  local dir=$1 node=$2 ctld_port=$3 slurmd_port=$4
  cat >"$dir/slurm.conf" <<EOF
# Written by scripts/slurm-cluster.sh: a single-node cluster on loopback.
ClusterName=culprit
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
MailProg=/bin/true
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
PlugStackConfig=$dir/plugstack.conf
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
SwitchType=switch/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
SlurmdTimeout=300
InactiveLimit=0
KillWait=5
MinJobAge=300
NodeName=$node NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=$(real_memory_mib) State=UNKNOWN
PartitionName=$k_partition Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
  : >"$dir/plugstack.conf"
}

write_munge_key() {
  local dir=$1
  mkdir -p "$dir/munge"
  chmod 755 "$dir/munge"
  head -c 1024 /dev/urandom >"$dir/munge/munge.key"
  chmod 400 "$dir/munge/munge.key"
}

# True while pid $1 runs; an exited child that nobody has reaped yet counts as gone.
running() {
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  stat=${stat##*) }
  [[ "${stat%% *}" != Z ]]
}

# Signals pid $1 with TERM, waits up to 10 s for it to go, then KILLs it.
stop_pid() {
  local pid=$1 i
  kill -TERM "$pid" 2>/dev/null || return 0
  for ((i = 0; i < 200; i++)); do
    running "$pid" || return 0
    sleep 0.05
  done
  kill -KILL "$pid" 2>/dev/null || true
}

stop_daemon() {
  local pid_file=$1 pid
  [[ -s "$pid_file" ]] || return 0
  pid=$(<"$pid_file")
  [[ "$pid" =~ ^[0-9]+$ ]] && stop_pid "$pid"
  rm -f "$pid_file"
}

# Pids of the processes in the trees rooted at the given pids (roots first).
process_trees() {
  local -A children=()
  local stat pid ppid rest
  for stat in /proc/[0-9]*/stat; do
    rest=$(cat "$stat" 2>/dev/null) || continue
    pid=${rest%% *}
    rest=${rest##*) }
    read -r _ ppid _ <<<"$rest"
    children[$ppid]+=" $pid"
  done
  local queue=("$@") i=0
  while ((i < ${#queue[@]})); do
    echo "${queue[i]}"
    # shellcheck disable=SC2206
    queue+=(${children[${queue[i]}]:-})
    ((i += 1))
  done
}

# The slurmstepd processes that slurmd of this cluster started (they inherit its SLURM_CONF).
step_daemons() {
  local conf=$1 comm pid
  for comm in /proc/[0-9]*/comm; do
    [[ "$(cat "$comm" 2>/dev/null)" == slurmstepd ]] || continue
    pid=${comm#/proc/}
    pid=${pid%/comm}
    running "$pid" || continue
    { tr '\0' '\n' <"/proc/$pid/environ"; } 2>/dev/null | grep -qxF "SLURM_CONF=$conf" && echo "$pid"
  done
}

stop_cluster() {
  local dir=$1 jobs i pids
  export SLURM_CONF="$dir/slurm.conf"
  # Cancelling the jobs first lets slurmstepd end their tasks.
  if [[ -s "$dir/run/slurmctld.pid" ]] && running "$(<"$dir/run/slurmctld.pid")"; then
    jobs=$(squeue -h -o %i 2>/dev/null || true)
    if [[ -n "$jobs" ]]; then
      # shellcheck disable=SC2086
      scancel $jobs 2>/dev/null || true
      for ((i = 0; i < 100; i++)); do
        [[ -z "$(squeue -h -o %i 2>/dev/null || true)" ]] && break
        sleep 0.1
      done
    fi
  fi
  stop_daemon "$dir/run/slurmd.pid"
  stop_daemon "$dir/run/slurmctld.pid"
  stop_daemon "$dir/munge/munged.pid"
  # Whatever slurmstepd outlived its job, with the tasks under it.
  # shellcheck disable=SC2046
  mapfile -t pids < <(process_trees $(step_daemons "$SLURM_CONF"))
  ((${#pids[@]} == 0)) || kill -KILL "${pids[@]}" 2>/dev/null || true
}

# The last error-looking line of a daemon's log (or of what the daemons printed before they
# opened their logs), to say why it did not come up.
log_reason() {
  local log=$1 line=""
  # A fresh state directory and the absent PMIx library are normal and logged as errors.
  [[ -r "$log" ]] && line=$(grep -Ei 'error|fatal' "$log" |
    grep -Evi 'state (save )?file|pmix|MPI|hwloc' | tail -n 1 || true)
  [[ -z "$line" && -r "$log" ]] && line=$(tail -n 1 "$log")
  [[ -z "$line" ]] && line=$(tail -n 1 "$(dirname "$log")/daemons.out" 2>/dev/null || true)
  echo "${line:-no log at $log}"
}

# Waits until `sinfo` reports the node idle; fails with the daemons' last error otherwise, early
# if one of them has exited.
wait_idle() {
  local dir=$1 node=$2 state="" i daemon pid_file
  for ((i = 0; i < k_wait_seconds * 5; i++)); do
    state=$(SLURM_CONF="$dir/slurm.conf" sinfo -h -n "$node" -o %T 2>/dev/null || true)
    [[ "$state" == idle ]] && return 0
    for daemon in slurmctld slurmd; do
      pid_file="$dir/run/$daemon.pid"
      if [[ -s "$pid_file" ]] && ! running "$(<"$pid_file")"; then
        echo "$daemon exited: $(log_reason "$dir/log/$daemon.log")"
        return 1
      fi
    done
    sleep 0.2
  done
  echo "node $node not idle after ${k_wait_seconds}s (state '${state:-none}'):" \
    "slurmctld: $(log_reason "$dir/log/slurmctld.log"); slurmd: $(log_reason "$dir/log/slurmd.log")"
  return 1
}

start_cluster() {
  local dir=$1 node ctld_port slurmd_port
  node=$(hostname -s)
  read -r ctld_port slurmd_port <<<"$(free_ports 2)"
  mkdir -p "$dir"/{state,spool,run,log}
  write_munge_key "$dir"
  write_conf "$dir" "$node" "$ctld_port" "$slurmd_port"
  export SLURM_CONF="$dir/slurm.conf"

  # munged refuses to run as root unless forced.
  munged --force --socket="$dir/munge/munge.socket" --key-file="$dir/munge/munge.key" \
    --log-file="$dir/log/munged.log" --pid-file="$dir/munge/munged.pid" \
    --seed-file="$dir/munge/munged.seed" >>"$dir/log/daemons.out" 2>&1 ||
    { echo "munged did not start: $(log_reason "$dir/log/munged.log")"; return 1; }
  slurmctld -c -f "$SLURM_CONF" >>"$dir/log/daemons.out" 2>&1 ||
    { echo "slurmctld did not start: $(log_reason "$dir/log/slurmctld.log")"; return 1; }
  slurmd -N "$node" -f "$SLURM_CONF" >>"$dir/log/daemons.out" 2>&1 ||
    { echo "slurmd did not start: $(log_reason "$dir/log/slurmd.log")"; return 1; }
  wait_idle "$dir" "$node"
}

# Starts the cluster, again on other ports if another process took one between the pick and the
# bind; prints the reason of the last failure.
start_with_retries() {
  local dir=$1 attempt reason
  for attempt in 1 2 3; do
    reason=$(start_cluster "$dir" 2>&1 | tail -n 1; exit "${PIPESTATUS[0]}") && return 0
    stop_cluster "$dir"
    [[ "$reason" == *"in use"* ]] || break
    rm -rf "${dir:?}"/{state,spool,run,log}
  done
  echo "${reason:-start failed (attempt $attempt)}"
  return 1
}

main() {
  (($# == 2)) || usage
  local command=$1 dir=$2 reason
  case "$command" in
  start)
    [[ $(id -u) -eq 0 ]] || die "must run as root (slurmd and munged run as root here)"
    local tool
    for tool in munged slurmctld slurmd sinfo; do
      command -v "$tool" >/dev/null || die "$tool not found: install Debian's slurm-wlm and munge"
    done
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    reason=$(start_with_retries "$dir") || die "$reason"
    echo "SLURM_CONF=$dir/slurm.conf"
    ;;
  stop)
    [[ -d "$dir" ]] || exit 0
    stop_cluster "$(cd "$dir" && pwd)"
    ;;
  *) usage ;;
  esac
}

main "$@"
