#!/usr/bin/env bash
# The soak's guard, started by soak.ts in a session of its own with its stdin a pipe from it:
#   bash stopWhenOrphaned.sh <soak pid> <servers' data dir>
# While the pipe is open it notes the soak's child processes (the services, anvil) every 2 s.
# When the pipe closes (the soak process exited, however: a SIGKILL included), it stops those
# children (SIGTERM, SIGKILL 12 s later) and the run's PostgreSQL, Redis and Kafka
# (infra/local/down.sh from their data dir, which stops only what was started from there), and
# deletes that data dir. After a normal end the soak has done all this itself and writes `done`:
# the guard then exits.
set -uo pipefail
soak=$1
data=$2
root=$(cd "$(dirname "$0")/../../.." && pwd)

children=()
while :; do
  mapfile -t children < <(ps -o pid= --ppid "$soak" 2>/dev/null | tr -d ' ')
  read -r -t 2 line
  rc=$?
  [ "$rc" -gt 128 ] && continue # timed out: the soak still runs
  [ "$rc" -eq 0 ] && [ "$line" = done ] && exit 0
  [ "$rc" -eq 0 ] && continue
  break # end of file: the soak is gone
done

live=()
for pid in "${children[@]}"; do
  # This guard is one of the soak's children too.
  [ -n "$pid" ] && [ "$pid" != $$ ] && kill -TERM "$pid" 2>/dev/null && live+=("$pid")
done
for _ in $(seq 1 120); do
  left=()
  for pid in "${live[@]}"; do kill -0 "$pid" 2>/dev/null && left+=("$pid"); done
  live=("${left[@]}")
  [ "${#live[@]}" -eq 0 ] && break
  sleep 0.1
done
for pid in "${live[@]}"; do kill -KILL "$pid" 2>/dev/null; done

if [ -d "$data" ]; then
  TRIBUTARY_DATA_DIR=$data bash "$root/infra/local/down.sh" pg redis kafka >/dev/null 2>&1
  rm -rf "$data"
fi
