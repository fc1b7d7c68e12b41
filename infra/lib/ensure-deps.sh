#!/usr/bin/env bash
# Sourced by the entry scripts (.ci/run, infra/test/run-tests.sh, infra/dev/start-all.sh):
# makes sure the pinned pnpm is on PATH and node_modules matches the lockfile, on a fresh machine too.
# On failure ensure_deps returns 1 with DEPS_ERROR (what failed) and DEPS_FIX (what to do).

# The version pinned by package.json's packageManager field.
tributary_pnpm_version() {
  node -e 'process.stdout.write(require(process.argv[1]).packageManager.split("@")[1])' "$1/package.json"
}

deps_failed() { # WHAT FIX
  DEPS_ERROR=$1
  DEPS_FIX=$2
  printf '[deps] ERROR: %s\n' "$1" >&2
  return 1
}

ensure_pnpm() {
  local root=$1 want have
  want=$(tributary_pnpm_version "$root") || deps_failed "could not read the pinned pnpm version from package.json" \
    "check that node runs (node --version) and package.json is intact" || return 1
  have=$(pnpm --version 2>/dev/null) || have=
  [ "$have" = "$want" ] && return 0
  printf '[deps] installing pnpm %s%s\n' "$want" "${have:+ (pnpm on PATH is $have)}" >&2
  npm install -g "pnpm@$want" >&2 || deps_failed "could not install pnpm $want (npm install -g pnpm@$want failed; its output is above)" \
    "install it yourself (npm install -g pnpm@$want, or corepack enable), then run the command again" || return 1
  have=$(pnpm --version 2>/dev/null) || have=
  [ "$have" = "$want" ] || deps_failed "pnpm $want was installed, but the pnpm on PATH ($(command -v pnpm || echo none)) is ${have:-not runnable}" \
    "put npm's global bin directory ($(npm prefix -g 2>/dev/null)/bin) first on PATH, then run the command again"
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
    (cd "$root" && pnpm install --frozen-lockfile >&2) || deps_failed "pnpm install --frozen-lockfile failed (its output is above)" \
      "a first install downloads the packages: check that the package registry is reachable (or its proxy set), then run the command again"
  fi
}

ensure_deps() {
  DEPS_ERROR=
  DEPS_FIX=
  command -v node >/dev/null 2>&1 || deps_failed "node is not on PATH" "install Node.js 20.10 or newer, then run the command again" || return 1
  ensure_pnpm "$1" && ensure_node_modules "$1"
}
