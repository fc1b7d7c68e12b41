#!/usr/bin/env bash
# Sourced by the entry scripts (.ci/run, infra/test/run-tests.sh, infra/dev/start-all.sh):
# makes sure the pinned pnpm is on PATH and node_modules matches the lockfile, on a fresh machine too.

# The version pinned by package.json's packageManager field.
tributary_pnpm_version() {
  node -e 'process.stdout.write(require(process.argv[1]).packageManager.split("@")[1])' "$1/package.json"
}

ensure_pnpm() {
  local root=$1 want
  want=$(tributary_pnpm_version "$root")
  if ! command -v pnpm >/dev/null 2>&1 || [ "$(pnpm --version 2>/dev/null)" != "$want" ]; then
    printf '[deps] installing pnpm %s\n' "$want" >&2
    npm install -g "pnpm@$want" >&2 || { printf '[deps] ERROR: could not install pnpm %s\n' "$want" >&2; return 1; }
  fi
}

# Installs when node_modules is missing or older than the lockfile or any manifest.
ensure_node_modules() {
  local root=$1 stale=0
  if [ ! -f "$root/node_modules/.modules.yaml" ] || ! cmp -s "$root/pnpm-lock.yaml" "$root/node_modules/.pnpm/lock.yaml"; then
    stale=1
  elif [ -n "$(cd "$root" && find package.json pnpm-workspace.yaml apps/*/package.json packages/*/package.json \
    -newer node_modules/.modules.yaml 2>/dev/null | head -n1)" ]; then
    stale=1
  fi
  if [ "$stale" = 1 ]; then
    printf '[deps] pnpm install --frozen-lockfile\n' >&2
    (cd "$root" && pnpm install --frozen-lockfile >&2) || { printf '[deps] ERROR: pnpm install failed\n' >&2; return 1; }
  fi
}

ensure_deps() {
  ensure_pnpm "$1" && ensure_node_modules "$1"
}
