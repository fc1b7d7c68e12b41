#!/usr/bin/env bash
# Redis (Debian's redis-server) under $DATA_DIR/redis. No RDB snapshots; append-only file on (so BullMQ's
# jobs survive a restart), REDIS_APPENDONLY=no turns it off.

redis_paths() {
  REDIS_DIR=$(service_dir redis)
  REDIS_PID=$REDIS_DIR/redis.pid
  REDIS_LOG=$REDIS_DIR/redis.log
  REDIS_CONF=$REDIS_DIR/redis.conf
}

redis_ready() { [ "$(redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping 2>/dev/null)" = PONG ]; }

redis_install() {
  command -v redis-server >/dev/null && command -v redis-cli >/dev/null && return 0
  apt_install redis-server
}

redis_start() {
  redis_paths
  if pid_alive "$REDIS_PID"; then
    log "redis: already running (pid $(head -n1 "$REDIS_PID"), port $REDIS_PORT)"
    return 0
  fi
  if command -v redis-cli >/dev/null && redis_ready; then
    log "redis: already answering on port $REDIS_PORT (not managed from $DATA_DIR)"
    return 0
  fi
  claim_port redis REDIS_PORT
  redis_install
  mkdir -p "$REDIS_DIR"
  cat >"$REDIS_CONF" <<CONF
bind 127.0.0.1
port $REDIS_PORT
protected-mode no
daemonize yes
pidfile $REDIS_PID
logfile $REDIS_LOG
dir $REDIS_DIR
save ""
appendonly ${REDIS_APPENDONLY:-yes}
maxmemory-policy noeviction
CONF
  log "redis: starting on 127.0.0.1:$REDIS_PORT (data $REDIS_DIR)"
  redis-server "$REDIS_CONF" >>"$REDIS_LOG" 2>&1 || {
    fail_with_log redis "$REDIS_LOG" "redis-server exited with an error"
    return 1
  }
  wait_until 30 redis_ready || { fail_with_log redis "$REDIS_LOG" "PING got no PONG within 30s"; return 1; }
  log "redis: ready"
}

redis_stop() {
  redis_paths
  stop_pid redis "$REDIS_PID" 20
}

redis_status() {
  redis_paths
  if pid_alive "$REDIS_PID"; then
    redis_ready && echo "redis: running (pid $(head -n1 "$REDIS_PID"), port $REDIS_PORT)" && return 0
    echo "redis: process alive but not answering PING on port $REDIS_PORT"
    return 1
  fi
  redis_ready && echo "redis: answering on port $REDIS_PORT (not managed from $DATA_DIR)" && return 0
  echo "redis: down (port $REDIS_PORT)"
  return 1
}
