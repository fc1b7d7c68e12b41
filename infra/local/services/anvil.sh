#!/usr/bin/env bash
# anvil (npm @foundry-rs/anvil, a root devDependency) on chain id 31337 with the standard test mnemonic.
# ANVIL_BLOCK_TIME: seconds between blocks (default 1); 0 or "off" means automine.
# The chain is kept in $DATA_DIR/anvil/state.json (written every ANVIL_STATE_INTERVAL seconds, default 10,
# and on a clean stop) and loaded at the next start, so a restart keeps the same chain (same genesis,
# same block hashes). ANVIL_STATE=off starts from genesis every time; deleting the file does it once.
# Past blocks' states beyond those in memory go to $DATA_DIR/anvil/states, at most
# ANVIL_MAX_PERSISTED_STATES (3600; the number and what it saves are in packages/testkit/src/anvilDefaults.ts)
# of them: anvil keeps every one by default under ~/.foundry and leaves them there when it stops. A new
# process never reads an earlier one's: they are removed at start.

ANVIL_CHAIN_ID=31337
ANVIL_MNEMONIC='test test test test test test test test test test test junk'

anvil_paths() {
  ANVIL_DIR=$(service_dir anvil)
  ANVIL_PID=$ANVIL_DIR/anvil.pid
  ANVIL_LOG=$ANVIL_DIR/anvil.log
  ANVIL_STATE_FILE=$ANVIL_DIR/state.json
}

anvil_ready() {
  local body
  body=$(curl -sf -m 2 -H 'content-type: application/json' \
    -d '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}' "http://127.0.0.1:$ANVIL_PORT") || return 1
  [[ "$body" == *'"result":"0x7a69"'* ]]
}

# Sets ANVIL_BIN to the native binary (override with ANVIL_BIN), running pnpm install when it is missing.
anvil_install() {
  if [ -n "${ANVIL_BIN:-}" ]; then
    [ -x "$ANVIL_BIN" ] || die "anvil: ANVIL_BIN=$ANVIL_BIN is not executable"
    return 0
  fi
  if ! ANVIL_BIN=$(node "$LOCAL_DIR/anvil-bin.mjs" 2>/dev/null); then
    log "anvil: binary missing, running pnpm install"
    (cd "$TRIBUTARY_ROOT" && pnpm install --frozen-lockfile >&2) || die "anvil: pnpm install failed"
    ANVIL_BIN=$(node "$LOCAL_DIR/anvil-bin.mjs") ||
      die "anvil: still missing after pnpm install (is @foundry-rs/anvil a root devDependency?)"
  fi
}

anvil_start() {
  anvil_paths
  if pid_alive "$ANVIL_PID"; then
    log "anvil: already running (pid $(head -n1 "$ANVIL_PID"), port $ANVIL_PORT)"
    return 0
  fi
  if anvil_ready; then
    log "anvil: already answering on port $ANVIL_PORT (not managed from $DATA_DIR)"
    return 0
  fi
  claim_port anvil ANVIL_PORT
  anvil_install
  mkdir -p "$ANVIL_DIR"
  rm -rf "$ANVIL_DIR/states"
  local args=(--host 127.0.0.1 --port "$ANVIL_PORT" --chain-id "$ANVIL_CHAIN_ID" --mnemonic "$ANVIL_MNEMONIC"
    --cache-path "$ANVIL_DIR/states" --max-persisted-states "${ANVIL_MAX_PERSISTED_STATES:-3600}")
  case "${ANVIL_BLOCK_TIME:-1}" in
    0 | off | "") ;;
    *) args+=(--block-time "${ANVIL_BLOCK_TIME:-1}") ;;
  esac
  local state="from genesis, not kept (ANVIL_STATE=off)"
  if [ "${ANVIL_STATE:-on}" != off ]; then
    args+=(--state "$ANVIL_STATE_FILE" --state-interval "${ANVIL_STATE_INTERVAL:-10}")
    if [ -s "$ANVIL_STATE_FILE" ]; then state="chain loaded from $ANVIL_STATE_FILE"
    else state="new chain from genesis, kept in $ANVIL_STATE_FILE"; fi
  fi
  log "anvil: starting on 127.0.0.1:$ANVIL_PORT (chain id $ANVIL_CHAIN_ID, block time ${ANVIL_BLOCK_TIME:-1}; $state)"
  : >"$ANVIL_LOG"
  setsid nohup "$ANVIL_BIN" "${args[@]}" >>"$ANVIL_LOG" 2>&1 </dev/null &
  echo $! >"$ANVIL_PID"
  local deadline=$((SECONDS + 30))
  until anvil_ready; do
    pid_alive "$ANVIL_PID" || { fail_with_log anvil "$ANVIL_LOG" "the anvil process exited"; return 1; }
    [ "$SECONDS" -ge "$deadline" ] && { fail_with_log anvil "$ANVIL_LOG" "eth_chainId did not answer 0x7a69 within 30s"; return 1; }
    sleep 0.3
  done
  log "anvil: ready"
}

anvil_stop() {
  anvil_paths
  stop_pid anvil "$ANVIL_PID" 10
}

anvil_status() {
  anvil_paths
  if pid_alive "$ANVIL_PID"; then
    anvil_ready && echo "anvil: running (pid $(head -n1 "$ANVIL_PID"), port $ANVIL_PORT)" && return 0
    echo "anvil: process alive but eth_chainId does not answer 0x7a69 on port $ANVIL_PORT"
    return 1
  fi
  anvil_ready && echo "anvil: answering on port $ANVIL_PORT (not managed from $DATA_DIR)" && return 0
  echo "anvil: down (port $ANVIL_PORT)"
  return 1
}
