#!/usr/bin/env bash
# Stops the local servers that up.sh started from this data dir (never servers it did not start).
#   bash infra/local/down.sh [pg redis kafka anvil]      (all by default)
#   --purge also deletes their data under TRIBUTARY_DATA_DIR.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

purge=0
args=()
for a in "$@"; do
  case "$a" in
    --purge) purge=1 ;;
    *) args+=("$a") ;;
  esac
done
parse_services "${args[@]}"
failed=()
# Reverse order: consumers of the others go first.
for ((i = ${#SERVICES[@]} - 1; i >= 0; i--)); do
  s=${SERVICES[$i]}
  "${s}_stop" || failed+=("$s")
  if [ "$purge" = 1 ]; then
    rm -rf "$(service_dir "$s")"
    log "$s: data removed"
  fi
done
[ "${#failed[@]}" -eq 0 ] || die "could not stop: ${failed[*]}"
