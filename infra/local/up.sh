#!/usr/bin/env bash
# Installs (when missing) and starts the local servers on 127.0.0.1, idempotently.
#   bash infra/local/up.sh [pg redis kafka anvil]        (all by default)
# Ports: PG_PORT REDIS_PORT KAFKA_PORT KAFKA_CONTROLLER_PORT ANVIL_PORT; data: TRIBUTARY_DATA_DIR (.data).
# Progress goes to stderr; the connection env lines go to stdout at the end.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

parse_services "$@"
ensure_data_dir
failed=()
for s in "${SERVICES[@]}"; do
  "${s}_start" || failed+=("$s")
done
if [ "${#failed[@]}" -gt 0 ]; then
  die "could not start: ${failed[*]} (see the messages above; stop the rest with infra/local/down.sh)"
fi
log "up: ${SERVICES[*]} (data in $DATA_DIR)"
print_env "${SERVICES[@]}"
