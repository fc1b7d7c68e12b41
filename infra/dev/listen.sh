#!/usr/bin/env bash
# The listen command (`pnpm listen --stream <id> --forward-to <url>` / `npm run listen -- ...`): a
# stream's webhooks, signed, forwarded to a receiver on this machine (packages/receiver). Installs
# what is missing first, as the other root commands do. TRIBUTARY_API_KEY is the key,
# TRIBUTARY_API_URL the gateway (http://127.0.0.1:8080 by default).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
. infra/lib/ensure-deps.sh
ensure_deps "$root" >&2
[ "${1:-}" = -- ] && shift # npm run listen -- --stream <id> ...
exec pnpm --silent --filter @tributary/receiver listen "$@"
