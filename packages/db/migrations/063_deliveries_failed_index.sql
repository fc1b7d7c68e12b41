-- Failed deliveries are counted for the status command and the sender's metrics: a partial index
-- keeps that count proportional to the failed rows, not to the whole delivery history.
CREATE INDEX IF NOT EXISTS deliveries_failed ON deliveries (stream_id) WHERE status = 'failed';
