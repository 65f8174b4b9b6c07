#!/usr/bin/env bash
# A sweep on a real single-node Slurm: brings up munged, slurmctld and slurmd
# on localhost (Debian's packages, installed here if missing) with their own
# key, socket, ports and state in a scratch folder, then
#   1. submits a 24-point sweep as a job array, collects the shards and
#      compares the merged CSV with a local run of the same spec: identical;
#   2. submits it again held, cancels two array tasks (tasks that died), and
#      checks that the next --slurm finds them, resubmits only their points,
#      and that the collected CSV is again identical.
# Stops everything it started. Skips (exit 77) only where Slurm cannot be
# installed or started as root.
#   tests/slurm/check_slurm_sweep.sh SPYRE_SIM
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
spyre_sim=$(realpath "${1:?usage: check_slurm_sweep.sh SPYRE_SIM}")
spec=$(realpath "$here/../../models/sweeps/softmax_lx.json")
skip() { echo "SKIPPED: $*" >&2; exit 77; }

[ "$(id -u)" -eq 0 ] || skip "starting slurmd needs root (run the tests as root to include this one)"
packages="munge slurmctld slurmd slurm-client"
missing=""
for p in $packages; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "installing:$missing"
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing; } \
    >/dev/null 2>&1 || skip "cannot install$missing with apt-get"
fi

scratch=$(mktemp -d /tmp/spyre-slurm.XXXXXX)
chmod 755 "$scratch"
cleanup() {
  for pid_file in "$scratch/slurmd.pid" "$scratch/slurmctld.pid" "$scratch/munged.pid"; do
    [ -s "$pid_file" ] && kill "$(cat "$pid_file")" 2>/dev/null || true
  done
  sleep 1
  rm -rf "$scratch"
}
trap cleanup EXIT
mkdir -p "$scratch/state" "$scratch/spool" "$scratch/log" "$scratch/work"

# munge with its own key and socket, so a munged already running is left alone.
dd if=/dev/urandom of="$scratch/munge.key" bs=1024 count=1 2>/dev/null
chmod 600 "$scratch/munge.key"
/usr/sbin/munged --force --socket="$scratch/munge.sock" --key-file="$scratch/munge.key" \
  --pid-file="$scratch/munged.pid" --log-file="$scratch/log/munged.log" --seed-file="$scratch/munge.seed" ||
  skip "munged does not start: $(tail -1 "$scratch/log/munged.log" 2>/dev/null)"

# Ports nobody listens on, so a Slurm already on this machine is left alone too.
port=$((20000 + RANDOM % 20000))
node=$(hostname -s)
cat >"$scratch/slurm.conf" <<CONF
ClusterName=spyretest
SlurmctldHost=$node(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$scratch/munge.sock
CredType=cred/munge
SlurmctldPort=$port
SlurmdPort=$((port + 1))
StateSaveLocation=$scratch/state
SlurmdSpoolDir=$scratch/spool
SlurmctldPidFile=$scratch/slurmctld.pid
SlurmdPidFile=$scratch/slurmd.pid
SlurmctldLogFile=$scratch/log/slurmctld.log
SlurmdLogFile=$scratch/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
NodeName=$node NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$scratch/slurm.conf"
slurmctld -f "$SLURM_CONF" || skip "slurmctld does not start: $(tail -1 "$scratch/log/slurmctld.log")"
slurmd -f "$SLURM_CONF" || skip "slurmd does not start: $(tail -1 "$scratch/log/slurmd.log")"
for _ in $(seq 60); do
  sinfo --noheader --format=%t 2>/dev/null | grep -q idle && break
  sleep 0.5
done
sinfo --noheader --format=%t | grep -q idle || skip "the node does not come up: $(tail -1 "$scratch/log/slurmd.log")"

# Waits until no task of ours is queued or running (at most two minutes).
wait_for_queue() {
  for _ in $(seq 240); do
    [ -z "$(squeue --me --noheader)" ] && return 0
    sleep 0.5
  done
  echo "the queue did not drain:" >&2
  squeue --me >&2
  exit 1
}

cd "$scratch/work"
"$spyre_sim" sweep "$spec" --output local -j 2 >/dev/null 2>&1

# 1. An array of 24 points, 5 per task, collected: the local run's CSV.
"$spyre_sim" sweep "$spec" --output slurm --slurm --points-per-task 5 | tee submit.txt
grep -q "24 submitted as job .* (5 array tasks" submit.txt
wait_for_queue
"$spyre_sim" sweep "$spec" --output slurm --collect
cmp local.csv slurm.csv
[ "$(ls slurm.slurm/shard-1-*.jsonl | wc -l)" -eq 5 ]

# 2. Two tasks die before they run; the next --slurm resubmits their points alone.
"$spyre_sim" sweep "$spec" --output dead --slurm --points-per-task 3 --sbatch-arg=--hold | tee submit.txt
job=$(sed -n 's/.* submitted as job \([0-9]*\) .*/\1/p' submit.txt)
scancel "${job}_2" "${job}_5"
scontrol release "$job"
"$spyre_sim" sweep "$spec" --output dead --slurm 2>resubmit.err | tee resubmit.txt
cat resubmit.err
[ "$(grep -c "left the queue with 3 of its 3 points unfinished" resubmit.err)" -eq 2 ]
grep -q "6 submitted as job" resubmit.txt
wait_for_queue
"$spyre_sim" sweep "$spec" --output dead --slurm | grep -q "24 done, 0 queued or running, nothing to submit"
"$spyre_sim" sweep "$spec" --output dead --collect
cmp local.csv dead.csv
echo "Slurm sweeps match the local run"
