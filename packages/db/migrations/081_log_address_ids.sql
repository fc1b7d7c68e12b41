-- Compact index for `logs` (GET /{address}/logs), as 080 did for transfers.
--
-- logs_by_address_topic0 was keyed by (chain_id, 20-byte address, 32-byte topic0, block_number,
-- log_index): 92 bytes an entry. It is now (address id, first 8 bytes of topic0, pos): 36 bytes.
-- With the primary key (chain_id, pos): 373 bytes per log in all on the benchmark's dataset, 449 before.
-- The page still matches the whole topic0 (a condition on the row): a log whose topic0 shares its
-- first 8 bytes with the one asked for but differs after them is read and dropped. Event
-- signatures are keccak hashes, so that happens only to logs a contract emits on purpose with
-- such a topic0 (an anonymous event), and costs only the reads of that contract's own logs.
-- The contract's address id comes from address_ids (080), which the projector fills for log
-- addresses too.
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_attribute
              WHERE attrelid = 'logs'::regclass AND attname = 'pos' AND NOT attisdropped) THEN
    RETURN;
  END IF;
  LOCK TABLE logs IN SHARE MODE;
  SET LOCAL maintenance_work_mem = '512MB';
  SET LOCAL work_mem = '256MB';

  INSERT INTO address_ids (chain_id, address)
  SELECT DISTINCT chain_id, address FROM logs ORDER BY chain_id, address
  ON CONFLICT DO NOTHING;

  -- Fixed-width columns first, then the variable-width ones: no alignment padding.
  CREATE TABLE logs_081 (
    chain_id          bigint      NOT NULL,
    block_number      bigint      NOT NULL,
    block_timestamp   timestamptz NOT NULL,
    pos               bigint      GENERATED ALWAYS AS ((block_number << 24) | log_index) STORED,
    log_index         integer     NOT NULL,
    transaction_index integer     NOT NULL,
    address_id        integer     NOT NULL,
    block_hash        bytea       NOT NULL,
    transaction_hash  bytea       NOT NULL,
    address           bytea       NOT NULL,
    topic0            bytea,
    topic1            bytea,
    topic2            bytea,
    topic3            bytea,
    data              bytea       NOT NULL,
    CONSTRAINT logs_position_range
      CHECK (block_number BETWEEN 0 AND 549755813887 AND log_index BETWEEN 0 AND 16777215)
  );
  INSERT INTO logs_081 (chain_id, block_number, block_timestamp, log_index, transaction_index, address_id,
                        block_hash, transaction_hash, address, topic0, topic1, topic2, topic3, data)
  SELECT l.chain_id, l.block_number, l.block_timestamp, l.log_index, l.transaction_index, a.id,
         l.block_hash, l.transaction_hash, l.address, l.topic0, l.topic1, l.topic2, l.topic3, l.data
    FROM logs l JOIN address_ids a ON a.chain_id = l.chain_id AND a.address = l.address
   ORDER BY l.chain_id, l.block_number, l.log_index;

  DROP TABLE logs;
  ALTER TABLE logs_081 RENAME TO logs;
  -- (chain_id, pos) as for transfers (080): 28 bytes an entry. New rows come at the end of each
  -- chain's range: no page needs room kept free.
  ALTER TABLE logs ADD CONSTRAINT logs_pkey PRIMARY KEY (chain_id, pos)
    WITH (fillfactor = 100);
  ANALYZE logs;
END $$;

SET LOCAL maintenance_work_mem = '512MB';
-- A contract's logs of one topic0, newest or oldest first, from a keyset position or a block range.
CREATE INDEX IF NOT EXISTS logs_by_address_topic0
  ON logs (address_id, (substring(topic0 FROM 1 FOR 8)), pos);
