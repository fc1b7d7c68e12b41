#!/usr/bin/env bash
# Sourced by the entry scripts that need the real servers (npm start, the test command, benchmarks, status):
# the servers named by DATABASE_URL / REDIS_URL / KAFKA_BROKERS / RPC_URL are used as given; the
# missing ones are started (or found running) by infra/local/up.sh and left running, and their
# addresses exported.

# ensure_servers ROOT: exports the four variables; returns 1 when a server could not be started, with
# SERVERS_ERROR saying which and why (up.sh's first error line; its messages are shown as they come).
ensure_servers() {
  local root=$1 var line env_lines errors rc=0
  declare -A service_of=([DATABASE_URL]=pg [REDIS_URL]=redis [KAFKA_BROKERS]=kafka [RPC_URL]=anvil)
  local missing=()
  SERVERS_ERROR=
  for var in DATABASE_URL REDIS_URL KAFKA_BROKERS RPC_URL; do
    [ -n "${!var:-}" ] || missing+=("${service_of[$var]}")
  done
  if [ "${#missing[@]}" -gt 0 ]; then
    printf '[servers] starting local servers: %s\n' "${missing[*]}" >&2
    # up.sh's stdout (the env lines) is read here; its stderr goes on to ours and to a file, for the
    # error line that names the cause.
    errors=$(mktemp)
    env_lines=$({
      bash "$root/infra/local/up.sh" "${missing[@]}" 2>&1 1>&3 3>&- | tee "$errors" >&2
      exit "${PIPESTATUS[0]}"
    } 3>&1) || rc=$?
    if [ "$rc" != 0 ]; then
      SERVERS_ERROR=$(sed -n '/^\[infra\] ERROR: /{s///p;q;}' "$errors")
      SERVERS_ERROR=${SERVERS_ERROR:-infra/local/up.sh ${missing[*]} exited with code $rc}
      rm -f "$errors"
      printf '[servers] ERROR: infra/local/up.sh %s failed: %s\n' "${missing[*]}" "$SERVERS_ERROR" >&2
      return 1
    fi
    rm -f "$errors"
    while IFS= read -r line; do
      case "$line" in
        DATABASE_URL=* | REDIS_URL=* | KAFKA_BROKERS=* | RPC_URL=*) export "${line?}" ;;
      esac
    done <<<"$env_lines"
  fi
  export DATABASE_URL REDIS_URL KAFKA_BROKERS RPC_URL
}

# use_local_addresses ROOT SERVICE...: exports the addresses infra/local uses for the servers (kept
# ports included), for the variables not set already; starts nothing (the status and admin commands
# report a server that is down instead).
use_local_addresses() {
  local root=$1 line var
  shift
  while IFS= read -r line; do
    var=${line%%=*}
    [ -n "${!var:-}" ] || export "${line?}"
  done < <(bash -c '. "$0/infra/local/lib.sh"; print_env "$@"' "$root" "$@")
}
