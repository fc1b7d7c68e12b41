-- A stream whose evaluation went over the matcher's time budget for one block (STREAM_BLOCK_BUDGET_MS)
-- is not evaluated any more: it would delay every other stream of every block. It goes to `error`
-- with the reason in its statusMessage, and is evaluated again once its owner updates it or sets
-- it active. Suspending or resuming moves the stream's config version (migration 061), so every
-- matcher drops or reloads it.
ALTER TABLE streams ADD COLUMN IF NOT EXISTS suspended_reason text;

DROP TRIGGER IF EXISTS streams_config_version ON streams;
CREATE TRIGGER streams_config_version BEFORE UPDATE ON streams FOR EACH ROW
  WHEN (OLD.config IS DISTINCT FROM NEW.config OR OLD.status IS DISTINCT FROM NEW.status
        OR OLD.chain_ids IS DISTINCT FROM NEW.chain_ids
        OR OLD.suspended_reason IS DISTINCT FROM NEW.suspended_reason)
  EXECUTE FUNCTION bump_stream_config_version();
