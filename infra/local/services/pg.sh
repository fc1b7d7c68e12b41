#!/usr/bin/env bash
# PostgreSQL 15 (Debian package) with the project's own cluster under $DATA_DIR/pg.
# Runs as the postgres OS user; superuser `tributary`, trust auth on loopback, database `tributary`.

PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}

pg_paths() {
  PG_DIR=$(service_dir pg)
  # A cluster placed outside the clone (pg_place) is used through its real path: the postgres
  # user may not traverse the link's parents.
  [ -L "$PG_DIR" ] && PG_DIR=$(readlink -f "$PG_DIR")
  PG_DATA=$PG_DIR/data
  PG_SOCK=$PG_DIR/run
  PG_LOG=$PG_DIR/postgres.log
}

# From /: the postgres user may not be able to enter the current directory.
pg_as_owner() { (cd / && runuser -u postgres -- "$@"); }

pg_psql() {
  "$PG_BIN/psql" -h 127.0.0.1 -p "$PG_PORT" -U tributary -X -q -v ON_ERROR_STOP=1 "$@"
}

pg_ready() {
  "$PG_BIN/pg_isready" -q -h 127.0.0.1 -p "$PG_PORT" -U tributary -d tributary &&
    [ "$(pg_psql -d tributary -tAc 'select 1' 2>/dev/null)" = 1 ]
}

pg_managed() { pg_paths; pid_alive "$PG_DATA/postmaster.pid"; }

pg_install() {
  [ -x "$PG_BIN/postgres" ] && return 0
  apt_install postgresql-15
  [ -x "$PG_BIN/postgres" ] || die "postgresql-15 installed but $PG_BIN/postgres is missing"
}

# The postgres OS user runs the cluster, so it must reach it. A clone under a directory it cannot
# traverse (a home directory with mode 0700, root's default on Debian) keeps its cluster under
# /var/lib/tributary instead, one directory per data dir, linked from $DATA_DIR/pg.
pg_place() {
  local link home
  link=$(service_dir pg)
  [ -L "$link" ] && return 0
  mkdir -p "$DATA_DIR"
  (cd / && runuser -u postgres -- test -x "$DATA_DIR") && return 0
  home=/var/lib/tributary/pg-$(printf '%s' "$DATA_DIR" | sha256sum | cut -c1-12)
  mkdir -p "$home"
  chmod 755 /var/lib/tributary "$home"
  # What an earlier run left there (its port file, a cluster that could not start) moves along.
  if [ -d "$link" ]; then cp -a "$link/." "$home/" && rm -rf "$link"; fi
  ln -s "$home" "$link"
  log "pg: the postgres user cannot reach $DATA_DIR (a parent directory is not traversable, e.g. a home directory with mode 0700): the cluster lives in $home, linked from $link"
}

pg_init() {
  id postgres >/dev/null 2>&1 || die "OS user 'postgres' is missing (the Debian package creates it)"
  pg_place
  pg_paths
  mkdir -p "$PG_DIR" "$PG_SOCK"
  chown postgres:postgres "$PG_DIR" "$PG_SOCK"
  if [ ! -f "$PG_DATA/PG_VERSION" ]; then
    log "pg: initdb $PG_DATA"
    pg_as_owner "$PG_BIN/initdb" -D "$PG_DATA" -U tributary -E UTF8 --no-locale \
      --auth-local=trust --auth-host=trust >"$PG_DIR/initdb.log" 2>&1 ||
      fail_with_log pg "$PG_DIR/initdb.log" "initdb failed" || return 1
  fi
  # shared_buffers: a quarter of the machine's memory, at most 8 GB and at least 128 MB (the usual
  # starting point for a database host; memory is taken as pages are first used). The stock 128 MB,
  # or 2 GB, leaves much of a 10M-row data set to the OS page cache, which costs PostgreSQL CPU on
  # every buffer miss: the transfers bench served 2.7% of its reads from there with 2 GB and 0.1%
  # with 6 GB, at about a fifth less PostgreSQL CPU per request. PG_SHARED_BUFFERS overrides.
  local mem_mb shared_mb
  mem_mb=$(awk '/^MemTotal:/ { print int($2 / 1024) }' /proc/meminfo 2>/dev/null || echo 0)
  shared_mb=$((mem_mb / 4))
  ((shared_mb > 8192)) && shared_mb=8192
  ((shared_mb < 128)) && shared_mb=128
  # Settings live in their own file so a re-run can change them without touching postgresql.conf.
  # synchronous_commit stays on: a commit a service has seen is in the kernel before it returns, so
  # a SIGKILL of PostgreSQL loses none (the matcher commits its Kafka offsets after its delivery
  # rows; an asynchronous commit lost in a crash made a block's webhook be created again under a
  # new id). fsync off only gives up safety against an OS crash or power loss, for speed.
  cat >"$PG_DATA/tributary.conf" <<CONF
listen_addresses = '127.0.0.1'
max_connections = ${PG_MAX_CONNECTIONS:-300}
shared_buffers = ${PG_SHARED_BUFFERS:-${shared_mb}MB}
fsync = ${PG_FSYNC:-off}
synchronous_commit = ${PG_SYNCHRONOUS_COMMIT:-on}
full_page_writes = off
unix_socket_directories = '$PG_SOCK'
log_min_messages = warning
CONF
  chown postgres:postgres "$PG_DATA/tributary.conf"
  grep -q "^include_if_exists = 'tributary.conf'" "$PG_DATA/postgresql.conf" ||
    echo "include_if_exists = 'tributary.conf'" >>"$PG_DATA/postgresql.conf"
}

pg_start() {
  pg_paths
  if pg_managed; then
    log "pg: already running (pid $(head -n1 "$PG_DATA/postmaster.pid"), port $PG_PORT)"
    return 0
  fi
  if pg_ready; then
    log "pg: already answering on port $PG_PORT (not managed from $DATA_DIR)"
    return 0
  fi
  claim_port pg PG_PORT
  pg_install
  pg_init || return 1
  log "pg: starting on 127.0.0.1:$PG_PORT (data $PG_DATA)"
  touch "$PG_LOG" && chown postgres:postgres "$PG_LOG"
  # The port is a start option so the same cluster can move ports between runs.
  pg_as_owner "$PG_BIN/pg_ctl" start -D "$PG_DATA" -l "$PG_LOG" -s -w -t 60 -o "-p $PG_PORT" \
    >>"$PG_LOG" 2>&1 || { fail_with_log pg "$PG_LOG" "pg_ctl start failed"; return 1; }
  if ! wait_until 60 "$PG_BIN/pg_isready" -q -h 127.0.0.1 -p "$PG_PORT"; then
    fail_with_log pg "$PG_LOG" "pg_isready did not succeed within 60s"
    return 1
  fi
  if [ "$(pg_psql -d postgres -tAc "select 1 from pg_database where datname = 'tributary'")" != 1 ]; then
    pg_psql -d postgres -c 'create database tributary' || {
      fail_with_log pg "$PG_LOG" "could not create database tributary"
      return 1
    }
  fi
  wait_until 30 pg_ready || { fail_with_log pg "$PG_LOG" "select 1 failed"; return 1; }
  log "pg: ready"
}

pg_stop() {
  pg_paths
  if ! pg_managed; then
    log "pg: not running from $PG_DATA"
    return 0
  fi
  pg_as_owner "$PG_BIN/pg_ctl" stop -D "$PG_DATA" -m fast -s -w -t 60 >&2 || return 1
  log "pg: stopped"
}

pg_status() {
  pg_paths
  if pg_managed; then
    pg_ready && echo "pg: running (pid $(head -n1 "$PG_DATA/postmaster.pid"), port $PG_PORT)" && return 0
    echo "pg: process alive but not answering on port $PG_PORT"
    return 1
  fi
  pg_ready && echo "pg: answering on port $PG_PORT (not managed from $DATA_DIR)" && return 0
  echo "pg: down (port $PG_PORT)"
  return 1
}
