#!/usr/bin/env bash
# Apache Kafka 3.9.1 KRaft single node (infra/kafka recipe) in the background, data in $DATA_DIR/kafka.

kafka_paths() {
  KAFKA_DIR=$(service_dir kafka)
  KAFKA_PID=$KAFKA_DIR/kafka.pid
  KAFKA_LOG=$KAFKA_DIR/kafka.log
}

kafka_ready() {
  node "$LOCAL_DIR/kafka-ready.mjs" "127.0.0.1:$KAFKA_PORT" "${1:-10}"
}

kafka_start() {
  kafka_paths
  if pid_alive "$KAFKA_PID"; then
    log "kafka: already running (pid $(head -n1 "$KAFKA_PID"), port $KAFKA_PORT)"
    return 0
  fi
  if port_open "$KAFKA_PORT" && kafka_ready 15 >/dev/null 2>&1; then
    log "kafka: already answering on port $KAFKA_PORT (not managed from $DATA_DIR)"
    return 0
  fi
  claim_port kafka KAFKA_PORT
  claim_port kafka-controller KAFKA_CONTROLLER_PORT
  local libs
  libs=$(bash "$TRIBUTARY_ROOT/infra/kafka/fetch-kafka.sh") || die "kafka: could not fetch the broker jars"
  mkdir -p "$KAFKA_DIR"
  log "kafka: starting on 127.0.0.1:$KAFKA_PORT, controller $KAFKA_CONTROLLER_PORT (data $KAFKA_DIR)"
  : >>"$KAFKA_LOG"
  KAFKA_LIBS=$libs KAFKA_DATA=$KAFKA_DIR KAFKA_PORT=$KAFKA_PORT KAFKA_CONTROLLER_PORT=$KAFKA_CONTROLLER_PORT \
    setsid nohup bash "$TRIBUTARY_ROOT/infra/kafka/start-kafka.sh" >>"$KAFKA_LOG" 2>&1 </dev/null &
  # start-kafka.sh execs the JVM, so this pid is the broker's.
  echo $! >"$KAFKA_PID"
  local deadline=$((SECONDS + ${KAFKA_START_TIMEOUT:-120}))
  until port_open "$KAFKA_PORT"; do
    pid_alive "$KAFKA_PID" || { fail_with_log kafka "$KAFKA_LOG" "the broker process exited"; return 1; }
    [ "$SECONDS" -ge "$deadline" ] && { fail_with_log kafka "$KAFKA_LOG" "port $KAFKA_PORT never opened"; return 1; }
    sleep 0.5
  done
  local out
  if ! out=$(kafka_ready $((deadline - SECONDS > 10 ? deadline - SECONDS : 10)) 2>&1); then
    fail_with_log kafka "$KAFKA_LOG" "$out"
    return 1
  fi
  log "kafka: ready ($out)"
}

kafka_stop() {
  kafka_paths
  stop_pid kafka "$KAFKA_PID" 60
}

kafka_status() {
  kafka_paths
  if pid_alive "$KAFKA_PID"; then
    kafka_ready 10 >/dev/null 2>&1 && echo "kafka: running (pid $(head -n1 "$KAFKA_PID"), port $KAFKA_PORT)" && return 0
    echo "kafka: process alive but not usable on port $KAFKA_PORT"
    return 1
  fi
  port_open "$KAFKA_PORT" && kafka_ready 10 >/dev/null 2>&1 &&
    echo "kafka: answering on port $KAFKA_PORT (not managed from $DATA_DIR)" && return 0
  echo "kafka: down (port $KAFKA_PORT)"
  return 1
}
