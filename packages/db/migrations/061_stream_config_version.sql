-- A version per stream that moves with everything the matcher evaluates: its config, status and
-- chains (a row trigger) and its addresses (statement triggers on stream_addresses). Matchers
-- learn of changes from change events on Kafka; a change whose event was lost (the gateway could
-- not publish it while Kafka was away) is found by comparing these versions every few seconds.
ALTER TABLE streams ADD COLUMN IF NOT EXISTS config_version bigint NOT NULL DEFAULT 0;

CREATE OR REPLACE FUNCTION bump_stream_config_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.config_version := OLD.config_version + 1;
  RETURN NEW;
END $$;
DROP TRIGGER IF EXISTS streams_config_version ON streams;
CREATE TRIGGER streams_config_version BEFORE UPDATE ON streams FOR EACH ROW
  WHEN (OLD.config IS DISTINCT FROM NEW.config OR OLD.status IS DISTINCT FROM NEW.status
        OR OLD.chain_ids IS DISTINCT FROM NEW.chain_ids)
  EXECUTE FUNCTION bump_stream_config_version();

CREATE OR REPLACE FUNCTION bump_stream_addresses_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE streams SET config_version = config_version + 1
   WHERE id IN (SELECT DISTINCT stream_id FROM changed);
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS stream_addresses_added ON stream_addresses;
CREATE TRIGGER stream_addresses_added AFTER INSERT ON stream_addresses
  REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION bump_stream_addresses_version();
DROP TRIGGER IF EXISTS stream_addresses_removed ON stream_addresses;
CREATE TRIGGER stream_addresses_removed AFTER DELETE ON stream_addresses
  REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION bump_stream_addresses_version();
