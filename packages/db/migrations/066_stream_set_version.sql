-- One version for the whole set of streams, moved in the same transaction as every change a
-- matcher evaluates (a stream created, its config, status, chains or addresses changed: whatever
-- moves its config_version, migration 061). Before each block a matcher reads it: when it moved,
-- the matcher first reloads the streams changed since (streams.set_version > what it loaded). So
-- a stream whose change committed before a block is evaluated is always evaluated against that
-- block, whether or not its change event on Kafka has arrived (the gateway publishes it after the
-- commit and cannot while Kafka is away). The single row serialises the changes: when a matcher
-- reads version V, every change up to V has committed. Deleted streams are not tracked here:
-- their delivery rows cannot be stored (foreign key), and the change event drops them.
CREATE TABLE IF NOT EXISTS stream_set_version (
  id      boolean PRIMARY KEY DEFAULT true CHECK (id),
  version bigint  NOT NULL
);
INSERT INTO stream_set_version (id, version) VALUES (true, 0) ON CONFLICT (id) DO NOTHING;

ALTER TABLE streams ADD COLUMN IF NOT EXISTS set_version bigint NOT NULL DEFAULT 0;
CREATE INDEX IF NOT EXISTS streams_set_version ON streams (set_version);

-- AFTER ROW triggers run at the end of the statement, once its rows are locked: the counter is
-- always the last lock a statement takes, so two writers cannot wait on each other in a cycle.
CREATE OR REPLACE FUNCTION bump_stream_set_version() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  v bigint;
BEGIN
  UPDATE stream_set_version SET version = version + 1 RETURNING version INTO v;
  UPDATE streams SET set_version = v WHERE id = NEW.id;
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS streams_set_version_insert ON streams;
CREATE TRIGGER streams_set_version_insert AFTER INSERT ON streams
  FOR EACH ROW EXECUTE FUNCTION bump_stream_set_version();
DROP TRIGGER IF EXISTS streams_set_version_update ON streams;
CREATE TRIGGER streams_set_version_update AFTER UPDATE ON streams
  FOR EACH ROW WHEN (OLD.config_version IS DISTINCT FROM NEW.config_version)
  EXECUTE FUNCTION bump_stream_set_version();
