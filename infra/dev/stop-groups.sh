#!/usr/bin/env bash
# Stops the process groups recorded as files named after their pgid (supervise.mjs records each run
# of a service as <run dir>/<service>/<pgid> while any process of it lives): SIGTERM to each group
# (the service's graceful shutdown), SIGKILL to what is left of it 1 s after SHUTDOWN_DEADLINE_MS
# (10000); removes the records. Returns when every group is gone.
#   bash infra/dev/stop-groups.sh DIR...                        (start-all: groups still recorded)
#   bash infra/dev/stop-groups.sh --when-stdin-closes DIR...    (supervise.mjs's guard)
# The guard runs in a session of its own, its stdin a pipe from the supervisor: it waits for that
# pipe to close, which happens when the supervisor exits, however it dies (SIGKILL included), and
# then stops what the supervisor left recorded (nothing, when it stopped its service itself).
set -uo pipefail
guard=0
if [ "${1:-}" = --when-stdin-closes ]; then
  guard=1
  shift
  while IFS= read -r _; do :; done
else
  # Bounded by the deadline, it finishes whatever signals follow: start-all runs it in npm's process
  # group, which a second Ctrl-C or a SIGTERM reaches while it waits.
  trap '' INT TERM HUP
fi
# A guard leaves no empty record directory behind, nor the run's once it is the last one there
# (start-all removes the run's when it stops normally).
tidy() { [ "$guard" = 0 ] || for dir in "$@"; do rmdir "$dir" "$(dirname "$dir")" 2>/dev/null; done; }
trap 'tidy "$@"' EXIT

now_ms() { printf '%s' $((${EPOCHREALTIME//[!0-9]/} / 1000)); }
# group_alive PGID: a process of the group still runs. One that exited and waits for its reaper (a
# zombie) does not count: its parent gone, only PID 1 reaps it, and a PID 1 that reaps late or never
# (a container's without an init) would keep this waiting to the deadline for nothing.
group_alive() {
  kill -0 -- "-$1" 2>/dev/null || return 1
  local stat line fields
  for stat in /proc/[0-9]*/stat; do
    read -r line 2>/dev/null <"$stat" || continue
    # After the command name (in parentheses, which may hold anything): state, ppid, pgrp, ...
    read -r -a fields <<<"${line##*) }"
    [ "${fields[2]}" = "$1" ] && [ "${fields[0]}" != Z ] && [ "${fields[0]}" != X ] && return 0
  done
  return 1
}

records=()
for dir in "$@"; do
  for record in "$dir"/*; do
    [[ "${record##*/}" =~ ^[0-9]+$ ]] && records+=("$record")
  done
done
[ "${#records[@]}" -gt 0 ] || exit 0

live=()
for record in "${records[@]}"; do
  pgid=${record##*/}
  if group_alive "$pgid"; then
    printf '[start] %s (process group %s) outlived its supervisor: stopping it\n' \
      "$(head -n1 "$record" 2>/dev/null)" "$pgid" >&2
    kill -TERM -- "-$pgid" 2>/dev/null
    live+=("$record")
  else
    rm -f "$record"
  fi
done

kill_at=$(($(now_ms) + ${SHUTDOWN_DEADLINE_MS:-10000} + 1000))
while [ "${#live[@]}" -gt 0 ]; do
  left=()
  for record in "${live[@]}"; do
    if group_alive "${record##*/}"; then left+=("$record"); else rm -f "$record"; fi
  done
  live=("${left[@]}")
  [ "${#live[@]}" -gt 0 ] || break
  if [ "$(now_ms)" -ge "$kill_at" ]; then
    for record in "${live[@]}"; do
      printf '[start] process group %s still running after the shutdown deadline: killed\n' "${record##*/}" >&2
      kill -KILL -- "-${record##*/}" 2>/dev/null
    done
    sleep 0.5
    for record in "${live[@]}"; do rm -f "$record"; done
    break
  fi
  sleep 0.1
done
