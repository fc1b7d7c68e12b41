#!/usr/bin/env bash
# `npm run test:containers`: the whole vitest suite against servers in containers (testcontainers:
# PostgreSQL, Redis, Kafka and anvil, the images docker-compose.yml uses), started once for the run
# and removed after it, instead of infra/local's. Needs a Docker engine (Docker Desktop, or on
# Debian `bash ../shared/docker/setup.sh`). Extra arguments go to vitest (a file filter, --project).
# The chaos, npm start and compose files run their stacks as they always do (infra/local servers
# of their own, npm start, docker compose): they test those, not the test kit.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
. infra/lib/ensure-deps.sh
ensure_deps "$root" || { echo "[test] ERROR: dependencies could not be installed (see above)" >&2; exit 1; }
if ! docker info >/dev/null 2>&1; then
  echo "[test] ERROR: no Docker engine answers (docker info failed): start one, or run npm test, which uses local servers" >&2
  exit 1
fi
# The servers come from containers, not from the environment or infra/local.
unset DATABASE_URL REDIS_URL KAFKA_BROKERS RPC_URL
export TRIBUTARY_TESTKIT_MODE=containers
exec pnpm exec vitest run "$@"
