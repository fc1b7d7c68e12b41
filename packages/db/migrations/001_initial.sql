-- Tributary schema v1. Hashes and addresses are bytea (20/32 bytes); amounts numeric(78,0).
-- Every statement is idempotent; the runner also records applied versions.

-- Chain data ----------------------------------------------------------------------------

CREATE TABLE IF NOT EXISTS blocks (
  chain_id      bigint      NOT NULL,
  number        bigint      NOT NULL,
  hash          bytea       NOT NULL,
  parent_hash   bytea       NOT NULL,
  timestamp     timestamptz NOT NULL,
  confirmed     boolean     NOT NULL DEFAULT false,
  PRIMARY KEY (chain_id, number)
);
CREATE UNIQUE INDEX IF NOT EXISTS blocks_hash ON blocks (chain_id, hash);
-- Date parameters resolve to block numbers through this index.
CREATE INDEX IF NOT EXISTS blocks_by_time ON blocks (chain_id, timestamp, number);

CREATE TABLE IF NOT EXISTS transfers (
  chain_id          bigint         NOT NULL,
  block_number      bigint         NOT NULL,
  log_index         integer        NOT NULL,
  block_hash        bytea          NOT NULL,
  block_timestamp   timestamptz    NOT NULL,
  transaction_hash  bytea          NOT NULL,
  transaction_index integer        NOT NULL,
  token_address     bytea          NOT NULL,
  from_address      bytea          NOT NULL,
  to_address        bytea          NOT NULL,
  value             numeric(78, 0) NOT NULL,
  PRIMARY KEY (chain_id, block_number, log_index)
);
-- Wallet transfers, both sides, newest first (GET /{address}/erc20/transfers).
CREATE INDEX IF NOT EXISTS transfers_by_from ON transfers (chain_id, from_address, block_number DESC, log_index DESC);
CREATE INDEX IF NOT EXISTS transfers_by_to ON transfers (chain_id, to_address, block_number DESC, log_index DESC);

CREATE TABLE IF NOT EXISTS logs (
  chain_id          bigint      NOT NULL,
  block_number      bigint      NOT NULL,
  log_index         integer     NOT NULL,
  block_hash        bytea       NOT NULL,
  block_timestamp   timestamptz NOT NULL,
  transaction_hash  bytea       NOT NULL,
  transaction_index integer     NOT NULL,
  address           bytea       NOT NULL,
  topic0            bytea,
  topic1            bytea,
  topic2            bytea,
  topic3            bytea,
  data              bytea       NOT NULL,
  PRIMARY KEY (chain_id, block_number, log_index)
);
-- Contract logs by topic0 (GET /{address}/logs).
CREATE INDEX IF NOT EXISTS logs_by_address_topic0 ON logs (chain_id, address, topic0, block_number, log_index);

CREATE TABLE IF NOT EXISTS tokens (
  chain_id       bigint         NOT NULL,
  address        bytea          NOT NULL,
  name           text,
  symbol         text,
  decimals       smallint,
  -- totalSupply read at read_at_block, plus every mint and burn projected after it.
  total_supply   numeric(78, 0),
  read_at_block  bigint         NOT NULL,
  logo           text,
  possible_spam  boolean        NOT NULL DEFAULT false,
  verified       boolean        NOT NULL DEFAULT false,
  PRIMARY KEY (chain_id, address)
);

CREATE TABLE IF NOT EXISTS balances (
  chain_id       bigint         NOT NULL,
  token_address  bytea          NOT NULL,
  owner_address  bytea          NOT NULL,
  balance        numeric(78, 0) NOT NULL,
  PRIMARY KEY (chain_id, token_address, owner_address)
);
-- Token owners, largest first (GET /erc20/{token}/owners); empty balances are not owners.
CREATE INDEX IF NOT EXISTS balances_by_token ON balances (chain_id, token_address, balance DESC, owner_address)
  WHERE balance <> 0;

CREATE TABLE IF NOT EXISTS address_kinds (
  chain_id     bigint  NOT NULL,
  address      bytea   NOT NULL,
  is_contract  boolean NOT NULL,
  PRIMARY KEY (chain_id, address)
);

CREATE TABLE IF NOT EXISTS address_labels (
  chain_id  bigint NOT NULL,
  address   bytea  NOT NULL,
  label     text   NOT NULL,
  PRIMARY KEY (chain_id, address)
);

-- Follower state ------------------------------------------------------------------------

CREATE TABLE IF NOT EXISTS follower_checkpoints (
  chain_id      bigint      PRIMARY KEY,
  block_number  bigint      NOT NULL,
  block_hash    bytea       NOT NULL,
  updated_at    timestamptz NOT NULL DEFAULT now()
);

-- The recent canonical chain as the follower published it: reorgs are found by parent hash.
CREATE TABLE IF NOT EXISTS follower_blocks (
  chain_id     bigint  NOT NULL,
  number       bigint  NOT NULL,
  hash         bytea   NOT NULL,
  parent_hash  bytea   NOT NULL,
  confirmed    boolean NOT NULL DEFAULT false,
  PRIMARY KEY (chain_id, number)
);

-- Accounts and keys ---------------------------------------------------------------------

CREATE TABLE IF NOT EXISTS accounts (
  id              uuid        PRIMARY KEY,
  name            text        NOT NULL,
  -- Signs this account's webhooks (x-signature); GET/POST /settings.
  webhook_secret  text        NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS api_keys (
  id          uuid        PRIMARY KEY,
  account_id  uuid        NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  -- sha256 of the key; the key itself is shown once, at creation.
  key_hash    bytea       NOT NULL UNIQUE,
  prefix      text        NOT NULL,
  label       text,
  created_at  timestamptz NOT NULL DEFAULT now(),
  revoked_at  timestamptz
);

-- Streams -------------------------------------------------------------------------------

CREATE TABLE IF NOT EXISTS streams (
  id              uuid        PRIMARY KEY,
  account_id      uuid        NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  -- The stream body as the caller gave it (normalised), echoed on reads.
  config          jsonb       NOT NULL,
  chain_ids       bigint[]    NOT NULL,
  status          text        NOT NULL DEFAULT 'active'
                  CHECK (status IN ('active', 'paused', 'error', 'terminated')),
  status_message  text        NOT NULL DEFAULT 'Stream is active',
  -- Delivery health: starts at 100, -1 per failed delivery, +1 per success (capped at 100).
  success_rate    integer     NOT NULL DEFAULT 100,
  error_since     timestamptz,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS streams_by_account ON streams (account_id, created_at, id);

CREATE TABLE IF NOT EXISTS stream_addresses (
  stream_id  uuid  NOT NULL REFERENCES streams (id) ON DELETE CASCADE,
  address    bytea NOT NULL,
  PRIMARY KEY (stream_id, address)
);

CREATE TABLE IF NOT EXISTS deliveries (
  id             uuid        PRIMARY KEY,
  stream_id      uuid        NOT NULL REFERENCES streams (id) ON DELETE CASCADE,
  chain_id       bigint      NOT NULL,
  block_number   bigint      NOT NULL,
  block_hash     bytea       NOT NULL,
  confirmed      boolean     NOT NULL,
  -- The exact body bytes sent (retries differ only in "retries").
  body           text        NOT NULL,
  status         text        NOT NULL DEFAULT 'pending'
                 CHECK (status IN ('pending', 'held', 'delivered', 'failed')),
  attempts       integer     NOT NULL DEFAULT 0,
  last_error     text,
  logs_count     integer     NOT NULL DEFAULT 0,
  txs_count      integer     NOT NULL DEFAULT 0,
  created_at     timestamptz NOT NULL DEFAULT now(),
  delivered_at   timestamptz,
  UNIQUE (stream_id, chain_id, block_hash, confirmed)
);
CREATE INDEX IF NOT EXISTS deliveries_by_stream ON deliveries (stream_id, created_at DESC, id);
CREATE INDEX IF NOT EXISTS deliveries_pending ON deliveries (stream_id) WHERE status IN ('pending', 'held');

CREATE TABLE IF NOT EXISTS delivery_attempts (
  delivery_id  uuid        NOT NULL REFERENCES deliveries (id) ON DELETE CASCADE,
  attempt      integer     NOT NULL,
  status_code  integer,
  latency_ms   integer     NOT NULL,
  error        text,
  at           timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (delivery_id, attempt)
);
