#!/usr/bin/env bash
# Sourced by start-kafka.sh: the KRaft cluster id, made as Kafka's own generator makes one
# (Uuid.randomUuid, which `kafka-storage.sh random-uuid` prints): 16 random bytes in base64url
# without padding, drawn again when the id starts with '-' (a command line reads such an argument
# as an option: `kafka-storage format -t -...` failed on one fresh clone in 64) or is one of the
# ids Kafka reserves (all zeros, and 1 for the metadata topic).

new_cluster_id() {
  local id
  while :; do
    id=$(head -c 16 /dev/urandom | base64)
    id=${id//+/-}
    id=${id//\//_}
    id=${id:0:22}
    cluster_id_usable "$id" && break
  done
  printf '%s\n' "$id"
}

# cluster_id_usable ID: ID is one Kafka's generator could have made.
cluster_id_usable() {
  [[ "$1" =~ ^[A-Za-z0-9_][A-Za-z0-9_-]{20}[AQgw]$ ]] &&
    [ "$1" != AAAAAAAAAAAAAAAAAAAAAA ] && [ "$1" != AAAAAAAAAAAAAAAAAAAAAQ ]
}
