#!/usr/bin/env bash
# Tells for each local server whether it runs and answers. Exit 0 when all asked for are usable, else 3.
#   bash infra/local/status.sh [pg redis kafka anvil]
set -uo pipefail
. "$(dirname "$0")/lib.sh"

parse_services "$@"
down=0
for s in "${SERVICES[@]}"; do
  "${s}_status" || down=1
done
[ "$down" = 0 ] || exit 3
