#!/usr/bin/env bash
# Shared helpers for the no-Docker local servers: repo paths, ports, data/pid/log locations,
# readiness waits and the one-time apt-get update. Sourced by up.sh, down.sh, status.sh.

TRIBUTARY_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
LOCAL_DIR="$TRIBUTARY_ROOT/infra/local"
DATA_DIR=${TRIBUTARY_DATA_DIR:-$TRIBUTARY_ROOT/.data}
CACHE_DIR=${TRIBUTARY_CACHE_DIR:-$TRIBUTARY_ROOT/.cache}

# The port variables the caller set. The others may move when their default is taken by another
# program (a CI runner, a second checkout): see claim_port.
declare -A PORT_GIVEN=()
# The topology servers (kafka3, sentinel) have a port variable per process.
TOPOLOGY_PORT_VARS=(KAFKA3_PORT_1 KAFKA3_PORT_2 KAFKA3_PORT_3 KAFKA3_CONTROLLER_PORT_1 KAFKA3_CONTROLLER_PORT_2
  KAFKA3_CONTROLLER_PORT_3 REDIS_HA_PORT_1 REDIS_HA_PORT_2 SENTINEL_PORT_1 SENTINEL_PORT_2 SENTINEL_PORT_3)
for _var in PG_PORT REDIS_PORT KAFKA_PORT KAFKA_CONTROLLER_PORT ANVIL_PORT "${TOPOLOGY_PORT_VARS[@]}"; do
  [ -n "${!_var:-}" ] && PORT_GIVEN[$_var]=1
done
unset _var

PG_PORT=${PG_PORT:-55432}
REDIS_PORT=${REDIS_PORT:-56379}
KAFKA_PORT=${KAFKA_PORT:-59092}
KAFKA_CONTROLLER_PORT=${KAFKA_CONTROLLER_PORT:-59093}
ANVIL_PORT=${ANVIL_PORT:-58545}
KAFKA3_PORT_1=${KAFKA3_PORT_1:-59192}
KAFKA3_PORT_2=${KAFKA3_PORT_2:-59194}
KAFKA3_PORT_3=${KAFKA3_PORT_3:-59196}
KAFKA3_CONTROLLER_PORT_1=${KAFKA3_CONTROLLER_PORT_1:-59193}
KAFKA3_CONTROLLER_PORT_2=${KAFKA3_CONTROLLER_PORT_2:-59195}
KAFKA3_CONTROLLER_PORT_3=${KAFKA3_CONTROLLER_PORT_3:-59197}
REDIS_HA_PORT_1=${REDIS_HA_PORT_1:-56380}
REDIS_HA_PORT_2=${REDIS_HA_PORT_2:-56381}
SENTINEL_PORT_1=${SENTINEL_PORT_1:-56390}
SENTINEL_PORT_2=${SENTINEL_PORT_2:-56391}
SENTINEL_PORT_3=${SENTINEL_PORT_3:-56392}

ALL_SERVICES=(pg redis kafka anvil)
# Started only when named: the production topologies (three Kafka brokers; Redis under Sentinel).
TOPOLOGY_SERVICES=(kafka3 sentinel)

# The port a server was started on is kept in its data dir ($DATA_DIR/<service>/<VAR>), so that
# status.sh, down.sh and the next up.sh find it there when claim_port had to move it.
declare -A PORT_SERVICE=([PG_PORT]=pg [REDIS_PORT]=redis [KAFKA_PORT]=kafka [KAFKA_CONTROLLER_PORT]=kafka
  [ANVIL_PORT]=anvil)
for _var in "${TOPOLOGY_PORT_VARS[@]}"; do
  case "$_var" in KAFKA3_*) PORT_SERVICE[$_var]=kafka3 ;; *) PORT_SERVICE[$_var]=sentinel ;; esac
done
port_file() { printf '%s/%s/%s' "$DATA_DIR" "${PORT_SERVICE[$1]}" "$1"; }
for _var in "${!PORT_SERVICE[@]}"; do
  if [ -z "${PORT_GIVEN[$_var]:-}" ] && [ -s "$(port_file "$_var")" ]; then
    printf -v "$_var" '%s' "$(head -n1 "$(port_file "$_var")")"
  fi
done
unset _var

log() { printf '[infra] %s\n' "$*" >&2; }
die() { printf '[infra] ERROR: %s\n' "$*" >&2; exit 1; }

# The data dir may be read by the postgres OS user: create it traversable.
ensure_data_dir() {
  mkdir -p "$DATA_DIR"
  chmod 755 "$DATA_DIR"
}

service_dir() { printf '%s/%s' "$DATA_DIR" "$1"; }

# pid_alive FILE: the pid in FILE names a live process.
pid_alive() {
  local file=$1 pid
  [ -f "$file" ] || return 1
  pid=$(head -n1 "$file" 2>/dev/null)
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null
}

# shellcheck source=../lib/ports.sh
. "$TRIBUTARY_ROOT/infra/lib/ports.sh"

# wait_until SECONDS CMD...: polls CMD every 0.5 s; returns 1 on timeout.
wait_until() {
  local timeout=$1; shift
  local deadline=$((SECONDS + timeout))
  until "$@" >/dev/null 2>&1; do
    [ "$SECONDS" -ge "$deadline" ] && return 1
    sleep 0.5
  done
}

# stop_pid NAME PIDFILE [SECONDS]: TERM, wait, then KILL; removes the pid file.
stop_pid() {
  local name=$1 file=$2 timeout=${3:-30} pid
  if ! pid_alive "$file"; then
    rm -f "$file"
    log "$name: not running (no live pid in $file)"
    return 0
  fi
  pid=$(head -n1 "$file")
  kill -TERM "$pid" 2>/dev/null || true
  local deadline=$((SECONDS + timeout))
  while kill -0 "$pid" 2>/dev/null; do
    if [ "$SECONDS" -ge "$deadline" ]; then
      log "$name: still alive after ${timeout}s, sending KILL to $pid"
      kill -KILL "$pid" 2>/dev/null || true
      break
    fi
    sleep 0.2
  done
  rm -f "$file"
  log "$name: stopped (pid $pid)"
}

# fail_with_log NAME LOGFILE WHY: says which server failed, why, and the tail of its log.
fail_with_log() {
  local name=$1 file=$2 why=$3
  printf '[infra] ERROR: %s failed to start: %s\n' "$name" "$why" >&2
  if [ -f "$file" ]; then
    printf '[infra] ---- last 40 lines of %s ----\n' "$file" >&2
    tail -n 40 "$file" >&2
    printf '[infra] ----\n' >&2
  fi
  return 1
}

APT_UPDATED=0
# apt_install PKG...: installs Debian packages, running apt-get update once per script run.
apt_install() {
  command -v apt-get >/dev/null || die "apt-get not found: install $* by hand"
  if [ "$APT_UPDATED" = 0 ]; then
    log "apt-get update"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2 || die "apt-get update failed"
    APT_UPDATED=1
  fi
  log "apt-get install -y $*"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >&2 \
    || die "apt-get install $* failed"
}

# claim_port NAME VAR: makes sure nothing listens on the port in VAR before NAME starts there. A port
# the caller set (env var) that is taken is a clear error, not a hang; a default port that another
# program holds moves to the next free one above it (logged, printed by up.sh's env lines and kept
# for status.sh and down.sh).
claim_port() {
  local name=$1 var=$2
  choose_port "$name" "$var" "${!var}" "${PORT_GIVEN[$var]:-0}" || die "$PORT_ERROR"
  [ -z "$PORT_MOVED" ] || log "$PORT_MOVED"
  keep_port "$var"
}

# keep_port VAR: records the port a server is started on.
keep_port() {
  local var=$1 file
  file=$(port_file "$var")
  mkdir -p "$(dirname "$file")"
  printf '%s\n' "${!var}" >"$file"
}

# parse_services ARGS...: validates names (pg redis kafka anvil, and the topologies kafka3 and
# sentinel; postgres, kafka-cluster and redis-sentinel are aliases), defaults to all (pg redis kafka anvil).
parse_services() {
  SERVICES=()
  [ "$#" -eq 0 ] && set -- "${ALL_SERVICES[@]}"
  local s
  for s in "$@"; do
    case "$s" in
      pg | postgres | postgresql) SERVICES+=(pg) ;;
      redis | kafka | anvil | kafka3 | sentinel) SERVICES+=("$s") ;;
      kafka-cluster) SERVICES+=(kafka3) ;;
      redis-sentinel) SERVICES+=(sentinel) ;;
      all) SERVICES+=("${ALL_SERVICES[@]}") ;;
      *) die "unknown service '$s' (expected: pg redis kafka anvil kafka3 sentinel)" ;;
    esac
  done
}

print_env() {
  local s
  for s in "$@"; do
    case "$s" in
      pg) echo "DATABASE_URL=postgres://tributary@127.0.0.1:$PG_PORT/tributary" ;;
      redis) echo "REDIS_URL=redis://127.0.0.1:$REDIS_PORT" ;;
      kafka) echo "KAFKA_BROKERS=127.0.0.1:$KAFKA_PORT" ;;
      anvil) echo "RPC_URL=http://127.0.0.1:$ANVIL_PORT" ;;
      kafka3)
        echo "KAFKA_BROKERS=127.0.0.1:$KAFKA3_PORT_1,127.0.0.1:$KAFKA3_PORT_2,127.0.0.1:$KAFKA3_PORT_3"
        echo "KAFKA_REPLICATION_FACTOR=3"
        echo "KAFKA_MIN_INSYNC_REPLICAS=2"
        ;;
      sentinel)
        echo "REDIS_SENTINELS=127.0.0.1:$SENTINEL_PORT_1,127.0.0.1:$SENTINEL_PORT_2,127.0.0.1:$SENTINEL_PORT_3"
        echo "REDIS_SENTINEL_NAME=$SENTINEL_MASTER_NAME"
        ;;
    esac
  done
}

for _svc in "$LOCAL_DIR"/services/*.sh; do
  # shellcheck source=/dev/null
  . "$_svc"
done
unset _svc
