#!/usr/bin/env bash
# Three Apache Kafka KRaft nodes (infra/kafka recipe, each broker and controller) in the background,
# data in $DATA_DIR/kafka3/<node>: the production topology of RELIABILITY.md. Topics get three copies
# and need two for a write (the brokers' defaults and the services' KAFKA_REPLICATION_FACTOR=3,
# KAFKA_MIN_INSYNC_REPLICAS=2), so one node may be lost: its partitions' leadership moves to another,
# the controller quorum keeps two of three. Started only when named (`up.sh kafka3`).

KAFKA3_NODES=(1 2 3)

kafka3_paths() {
  KAFKA3_DIR=$(service_dir kafka3)
  KAFKA3_LOG=$KAFKA3_DIR/kafka3.log
}
kafka3_node_dir() { printf '%s/%s' "$KAFKA3_DIR" "$1"; }
kafka3_port() { local v="KAFKA3_PORT_$1"; printf '%s' "${!v}"; }
kafka3_controller_port() { local v="KAFKA3_CONTROLLER_PORT_$1"; printf '%s' "${!v}"; }
kafka3_brokers() { printf '127.0.0.1:%s,127.0.0.1:%s,127.0.0.1:%s' "$KAFKA3_PORT_1" "$KAFKA3_PORT_2" "$KAFKA3_PORT_3"; }

# Ready: all three brokers registered with a controller, and a topic of three copies round-trips.
kafka3_ready() {
  node "$LOCAL_DIR/kafka-ready.mjs" "$(kafka3_brokers)" "${1:-10}" 3
}

kafka3_start() {
  kafka3_paths
  local n running=0
  for n in "${KAFKA3_NODES[@]}"; do
    pid_alive "$(kafka3_node_dir "$n")/kafka.pid" && running=$((running + 1))
  done
  if [ "$running" = 3 ]; then
    log "kafka3: already running (ports $KAFKA3_PORT_1 $KAFKA3_PORT_2 $KAFKA3_PORT_3)"
    return 0
  fi
  local libs
  libs=$(bash "$TRIBUTARY_ROOT/infra/kafka/fetch-kafka.sh") || die "kafka3: could not fetch the broker jars"
  mkdir -p "$KAFKA3_DIR"
  # One cluster id for the three: made once, kept with the cluster's data.
  . "$TRIBUTARY_ROOT/infra/kafka/cluster-id.sh"
  cluster_id_usable "$(head -n1 "$KAFKA3_DIR/cluster.id" 2>/dev/null)" || new_cluster_id >"$KAFKA3_DIR/cluster.id"
  local voters=""
  for n in "${KAFKA3_NODES[@]}"; do
    if ! pid_alive "$(kafka3_node_dir "$n")/kafka.pid"; then
      claim_port "kafka3 node $n" "KAFKA3_PORT_$n"
      claim_port "kafka3 node $n controller" "KAFKA3_CONTROLLER_PORT_$n"
    fi
    voters+="${voters:+,}$n@127.0.0.1:$(kafka3_controller_port "$n")"
  done
  for n in "${KAFKA3_NODES[@]}"; do kafka3_start_node "$n" "$libs" "$voters" || return 1; done
  local deadline=$((SECONDS + ${KAFKA_START_TIMEOUT:-180})) out
  if ! out=$(kafka3_ready $((deadline - SECONDS > 10 ? deadline - SECONDS : 10)) 2>&1); then
    fail_with_log kafka3 "$KAFKA3_LOG" "$out"
    return 1
  fi
  log "kafka3: ready ($out)"
}

# kafka3_start_node N LIBS VOTERS: starts node N unless it runs (its ports were claimed by the caller).
kafka3_start_node() {
  local n=$1 libs=$2 voters=$3 dir pid_file
  dir=$(kafka3_node_dir "$n")
  pid_file=$dir/kafka.pid
  pid_alive "$pid_file" && return 0
  mkdir -p "$dir"
  log "kafka3: starting node $n on 127.0.0.1:$(kafka3_port "$n"), controller $(kafka3_controller_port "$n") (data $dir)"
  : >>"$dir/kafka.log"
  KAFKA_LIBS=$libs KAFKA_DATA=$dir KAFKA_PORT=$(kafka3_port "$n") KAFKA_CONTROLLER_PORT=$(kafka3_controller_port "$n") \
    KAFKA_NODE_ID=$n KAFKA_CONTROLLER_VOTERS=$voters KAFKA_CLUSTER_ID=$(head -n1 "$KAFKA3_DIR/cluster.id") \
    KAFKA_REPLICATION_FACTOR=3 KAFKA_MIN_INSYNC_REPLICAS=2 \
    setsid nohup bash "$TRIBUTARY_ROOT/infra/kafka/start-kafka.sh" >>"$dir/kafka.log" 2>&1 </dev/null &
  # start-kafka.sh execs the JVM, so this pid is the broker's.
  echo $! >"$pid_file"
  sleep 0.5
  pid_alive "$pid_file" || { fail_with_log "kafka3 node $n" "$dir/kafka.log" "the broker process exited"; return 1; }
  ln -sf "$dir/kafka.log" "$KAFKA3_DIR/kafka3.log" 2>/dev/null || true
}

kafka3_stop() {
  kafka3_paths
  # All at once: the last node of a cluster stopped alone waits for a controller quorum that is gone.
  local n pids=()
  for n in "${KAFKA3_NODES[@]}"; do
    pid_alive "$(kafka3_node_dir "$n")/kafka.pid" && kill -TERM "$(head -n1 "$(kafka3_node_dir "$n")/kafka.pid")" 2>/dev/null
  done
  for n in "${KAFKA3_NODES[@]}"; do stop_pid "kafka3 node $n" "$(kafka3_node_dir "$n")/kafka.pid" 60 & pids+=($!); done
  wait "${pids[@]}"
}

kafka3_status() {
  kafka3_paths
  local n down=()
  for n in "${KAFKA3_NODES[@]}"; do pid_alive "$(kafka3_node_dir "$n")/kafka.pid" || down+=("$n"); done
  if [ "${#down[@]}" -gt 0 ]; then
    echo "kafka3: node(s) ${down[*]} down (ports $KAFKA3_PORT_1 $KAFKA3_PORT_2 $KAFKA3_PORT_3)"
    return 1
  fi
  kafka3_ready 15 >/dev/null 2>&1 && echo "kafka3: running, three brokers at $(kafka3_brokers)" && return 0
  echo "kafka3: processes alive but the cluster is not usable at $(kafka3_brokers)"
  return 1
}
