#!/usr/bin/env bash
# Redis under Sentinel (Debian's redis-server; redis-sentinel, or redis-server --sentinel, which is the
# same binary): a master and a replica, and three sentinels that agree (quorum 2) to promote the
# replica when the master stops answering for SENTINEL_DOWN_AFTER_MS (5000 here; Redis' own default is
# 30000). Data in $DATA_DIR/sentinel/<process>. The production topology of RELIABILITY.md, started only
# when named (`up.sh sentinel`); the services find the master through REDIS_SENTINELS.
#
# Each configuration file is written once: after that Redis and the sentinels own it (a failover
# rewrites who replicates whom, and a restarted process must keep that, as in production).

SENTINEL_MASTER_NAME=${SENTINEL_MASTER_NAME:-mymaster}
SENTINEL_DOWN_AFTER_MS=${SENTINEL_DOWN_AFTER_MS:-5000}
SENTINEL_REDIS=(1 2)
SENTINEL_NODES=(1 2 3)

sentinel_paths() { SENTINEL_DIR=$(service_dir sentinel); }
sentinel_redis_dir() { printf '%s/redis-%s' "$SENTINEL_DIR" "$1"; }
sentinel_node_dir() { printf '%s/sentinel-%s' "$SENTINEL_DIR" "$1"; }
sentinel_redis_port() { local v="REDIS_HA_PORT_$1"; printf '%s' "${!v}"; }
sentinel_port() { local v="SENTINEL_PORT_$1"; printf '%s' "${!v}"; }

# sentinel_master_port: the master's port, as the first sentinel that answers says.
sentinel_master_port() {
  local n addr
  for n in "${SENTINEL_NODES[@]}"; do
    addr=$(redis-cli -p "$(sentinel_port "$n")" sentinel get-master-addr-by-name "$SENTINEL_MASTER_NAME" 2>/dev/null |
      sed -n 2p)
    [ -n "$addr" ] && { printf '%s' "$addr"; return 0; }
  done
  return 1
}

# Ready: both Redis answer, the master the sentinels name has its replica linked, and the three
# sentinels know each other (a failover needs two of them to agree).
sentinel_ready() {
  local n port
  for n in "${SENTINEL_REDIS[@]}"; do
    [ "$(redis-cli -p "$(sentinel_redis_port "$n")" ping 2>/dev/null)" = PONG ] || return 1
  done
  port=$(sentinel_master_port) || return 1
  redis-cli -p "$port" info replication 2>/dev/null | grep -q '^role:master' || return 1
  redis-cli -p "$port" info replication 2>/dev/null | grep -q '^connected_slaves:1' || return 1
  redis-cli -p "$SENTINEL_PORT_1" sentinel ckquorum "$SENTINEL_MASTER_NAME" 2>/dev/null | grep -q '3 usable'
}

sentinel_start() {
  sentinel_paths
  redis_install
  mkdir -p "$SENTINEL_DIR"
  local n dir conf
  for n in "${SENTINEL_REDIS[@]}"; do
    dir=$(sentinel_redis_dir "$n")
    pid_alive "$dir/redis.pid" && continue
    claim_port "sentinel redis $n" "REDIS_HA_PORT_$n"
    mkdir -p "$dir"
    conf=$dir/redis.conf
    if [ ! -f "$conf" ]; then
      cat >"$conf" <<CONF
bind 127.0.0.1
port $(sentinel_redis_port "$n")
protected-mode no
daemonize yes
pidfile $dir/redis.pid
logfile $dir/redis.log
dir $dir
save ""
appendonly ${REDIS_APPENDONLY:-yes}
maxmemory-policy noeviction
CONF
      [ "$n" = 1 ] || echo "replicaof 127.0.0.1 $REDIS_HA_PORT_1" >>"$conf"
    fi
    log "sentinel: starting redis $n on 127.0.0.1:$(sentinel_redis_port "$n") (data $dir)"
    redis-server "$conf" >>"$dir/redis.log" 2>&1 || {
      fail_with_log "sentinel redis $n" "$dir/redis.log" "redis-server exited with an error"
      return 1
    }
  done
  local bin=(redis-server)
  command -v redis-sentinel >/dev/null && bin=(redis-sentinel)
  for n in "${SENTINEL_NODES[@]}"; do
    dir=$(sentinel_node_dir "$n")
    pid_alive "$dir/sentinel.pid" && continue
    claim_port "sentinel $n" "SENTINEL_PORT_$n"
    mkdir -p "$dir"
    conf=$dir/sentinel.conf
    [ -f "$conf" ] || cat >"$conf" <<CONF
bind 127.0.0.1
port $(sentinel_port "$n")
protected-mode no
daemonize yes
pidfile $dir/sentinel.pid
logfile $dir/sentinel.log
dir $dir
sentinel monitor $SENTINEL_MASTER_NAME 127.0.0.1 $REDIS_HA_PORT_1 2
sentinel down-after-milliseconds $SENTINEL_MASTER_NAME $SENTINEL_DOWN_AFTER_MS
sentinel failover-timeout $SENTINEL_MASTER_NAME 10000
sentinel parallel-syncs $SENTINEL_MASTER_NAME 1
CONF
    log "sentinel: starting sentinel $n on 127.0.0.1:$(sentinel_port "$n")"
    if [ "${bin[0]}" = redis-server ]; then
      redis-server "$conf" --sentinel >>"$dir/sentinel.log" 2>&1
    else
      redis-sentinel "$conf" >>"$dir/sentinel.log" 2>&1
    fi || { fail_with_log "sentinel $n" "$dir/sentinel.log" "the sentinel exited with an error"; return 1; }
  done
  wait_until 60 sentinel_ready || {
    fail_with_log sentinel "$(sentinel_node_dir 1)/sentinel.log" \
      "the master, its replica and three agreeing sentinels were not there within 60s"
    return 1
  }
  log "sentinel: ready (master $SENTINEL_MASTER_NAME at 127.0.0.1:$(sentinel_master_port))"
}

sentinel_stop() {
  sentinel_paths
  local n
  # The sentinels first: none promotes a replica while the Redis processes stop.
  for n in "${SENTINEL_NODES[@]}"; do stop_pid "sentinel $n" "$(sentinel_node_dir "$n")/sentinel.pid" 20; done
  for n in "${SENTINEL_REDIS[@]}"; do stop_pid "sentinel redis $n" "$(sentinel_redis_dir "$n")/redis.pid" 20; done
}

sentinel_status() {
  sentinel_paths
  local n down=()
  for n in "${SENTINEL_REDIS[@]}"; do pid_alive "$(sentinel_redis_dir "$n")/redis.pid" || down+=("redis-$n"); done
  for n in "${SENTINEL_NODES[@]}"; do pid_alive "$(sentinel_node_dir "$n")/sentinel.pid" || down+=("sentinel-$n"); done
  if [ "${#down[@]}" -gt 0 ]; then
    echo "sentinel: ${down[*]} down"
    return 1
  fi
  sentinel_ready && echo "sentinel: running, master $SENTINEL_MASTER_NAME at 127.0.0.1:$(sentinel_master_port), replica linked, 3 sentinels" && return 0
  echo "sentinel: processes alive, but no linked replica or no agreeing sentinels"
  return 1
}
