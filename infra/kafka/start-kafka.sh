#!/usr/bin/env bash
# A KRaft broker+controller on 127.0.0.1 from Maven-resolved jars. Foreground; SIGTERM stops it.
# Alone by default; one node of a cluster with KAFKA_NODE_ID, KAFKA_CONTROLLER_VOTERS and a shared
# KAFKA_CLUSTER_ID (infra/local's kafka3 starts three).
# The data dir persists: storage is formatted only once (cluster id kept in $KAFKA_DATA/cluster.id).
# env: KAFKA_LIBS (dir of jars, from fetch-kafka.sh), KAFKA_DATA (required), KAFKA_PORT, KAFKA_CONTROLLER_PORT,
#      KAFKA_NODE_ID (1), KAFKA_CONTROLLER_VOTERS (id@host:port,...; default this node alone),
#      KAFKA_CLUSTER_ID (every node of a cluster formats with the same; default: made once per data dir),
#      KAFKA_REPLICATION_FACTOR, KAFKA_MIN_INSYNC_REPLICAS (1, 1: the defaults of every topic the broker
#      creates, the consumer offsets' included), KAFKA_HEAP_OPTS, KAFKA_MAX_MESSAGE_BYTES (64 MiB), JAVA
set -euo pipefail
libs=${KAFKA_LIBS:?set KAFKA_LIBS to the directory filled by fetch-kafka.sh}
data=${KAFKA_DATA:?set KAFKA_DATA to a directory that persists between runs}
port=${KAFKA_PORT:-59092}
cport=${KAFKA_CONTROLLER_PORT:-59093}
max_bytes=${KAFKA_MAX_MESSAGE_BYTES:-67108864}
node_id=${KAFKA_NODE_ID:-1}
voters=${KAFKA_CONTROLLER_VOTERS:-$node_id@127.0.0.1:$cport}
rf=${KAFKA_REPLICATION_FACTOR:-1}
min_isr=${KAFKA_MIN_INSYNC_REPLICAS:-1}
java=${JAVA:-java}
mkdir -p "$data/kraft" "$data/logs"

kjar=$(ls "$libs"/kafka_2.13-*.jar | grep -v -e '-test' -e '-sources' | head -n1)
kver=${kjar##*/kafka_2.13-}
kver=${kver%.jar}

cat >"$data/server.properties" <<PROPS
process.roles=broker,controller
node.id=${node_id}
controller.quorum.voters=${voters}
listeners=PLAINTEXT://127.0.0.1:${port},CONTROLLER://127.0.0.1:${cport}
advertised.listeners=PLAINTEXT://127.0.0.1:${port}
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs=${data}/kraft
num.partitions=1
# What a topic the broker creates gets (auto-created ones, the consumer offsets): with three brokers,
# 3 and 2, so that a group's committed offsets outlive a broker as the block events do.
default.replication.factor=${rf}
min.insync.replicas=${min_isr}
offsets.topic.replication.factor=${rf}
offsets.topic.num.partitions=1
transaction.state.log.replication.factor=${rf}
transaction.state.log.min.isr=${min_isr}
transaction.state.log.num.partitions=1
group.initial.rebalance.delay.ms=0
group.min.session.timeout.ms=1000
auto.create.topics.enable=true
delete.topic.enable=true
# Whole blocks travel as one message: let big ones through.
message.max.bytes=${max_bytes}
replica.fetch.max.bytes=${max_bytes}
replica.fetch.response.max.bytes=${max_bytes}
socket.request.max.bytes=$((max_bytes + 16777216))
num.network.threads=2
num.io.threads=4
background.threads=2
num.recovery.threads.per.data.dir=1
log.cleaner.dedupe.buffer.size=8388608
log.retention.hours=24
PROPS

case "$kver" in
  3.*)
    cat >"$data/log4j.properties" <<'L4J'
log4j.rootLogger=WARN, stdout
log4j.appender.stdout=org.apache.log4j.ConsoleAppender
log4j.appender.stdout.layout=org.apache.log4j.PatternLayout
log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n
log4j.logger.kafka.server.KafkaRaftServer=INFO
L4J
    logopt="-Dlog4j.configuration=file:$data/log4j.properties"
    ;;
  *)
    cat >"$data/log4j2.properties" <<'L4J2'
status = warn
appender.console.type = Console
appender.console.name = STDOUT
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = warn
rootLogger.appenderRef.stdout.ref = STDOUT
logger.started.name = kafka.server.KafkaRaftServer
logger.started.level = info
L4J2
    logopt="-Dlog4j2.configurationFile=$data/log4j2.properties"
    ;;
esac

# 1) format storage once (what bin/kafka-storage.sh format does); static voters need no --standalone.
# The cluster id is made once; one Kafka's generator could not have made (an earlier version's,
# starting with '-', on which this format failed) is made again, as the storage is not formatted yet.
if [ ! -f "$data/kraft/meta.properties" ]; then
  . "$(dirname "$0")/cluster-id.sh"
  if [ -n "${KAFKA_CLUSTER_ID:-}" ]; then
    cluster_id_usable "$KAFKA_CLUSTER_ID" || { echo "KAFKA_CLUSTER_ID=$KAFKA_CLUSTER_ID is not a usable cluster id" >&2; exit 1; }
    printf '%s\n' "$KAFKA_CLUSTER_ID" >"$data/cluster.id"
  fi
  cluster_id_usable "$(head -n1 "$data/cluster.id" 2>/dev/null)" || new_cluster_id >"$data/cluster.id"
  cluster_id=$(head -n1 "$data/cluster.id")
  # --cluster-id=ID: one argument, whatever the id starts with.
  "$java" -Xmx256m $logopt -cp "$libs/*" kafka.tools.StorageTool \
    format --cluster-id="$cluster_id" --config="$data/server.properties" --ignore-formatted
fi

# 2) run the server (what bin/kafka-server-start.sh does), minus JMX and GC-log flags.
exec "$java" ${KAFKA_HEAP_OPTS:--Xms256m -Xmx512m} \
  -server -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35 \
  -XX:+ExplicitGCInvokesConcurrent -XX:MaxInlineLevel=15 -Djava.awt.headless=true \
  $logopt -Dkafka.logs.dir="$data/logs" \
  -cp "$libs/*" kafka.Kafka "$data/server.properties"
