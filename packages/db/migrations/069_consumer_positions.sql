-- How far each consumer group of the block topic has processed each chain's confirmed blocks
-- (the highest block whose `confirmed` event it finished; written every second or so, so it may
-- lag behind, never run ahead). When a consumer finds a gap in the block topic (the broker lost
-- its log, retention was shorter than an outage), the blocks after this are the ones whose events
-- it may have lost: it asks the follower to re-publish them (backfill_requests).
CREATE TABLE IF NOT EXISTS consumer_positions (
  group_id          text        NOT NULL,
  chain_id          bigint      NOT NULL,
  confirmed_through bigint      NOT NULL,
  updated_at        timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (group_id, chain_id)
);
