-- PostgreSQL is the source of truth for webhooks (an outbox): each pending delivery names the
-- BullMQ job that is to deliver it (job_id) and when that was decided (job_at). The sender's
-- relay finds pending deliveries whose job is missing from Redis (restarted empty, flushed,
-- failed over) and enqueues them again. Rows written before this migration name no job: the
-- relay treats them as missing once.
ALTER TABLE deliveries ADD COLUMN IF NOT EXISTS job_id text;
ALTER TABLE deliveries ADD COLUMN IF NOT EXISTS job_at timestamptz NOT NULL DEFAULT now();
-- The relay's scan: pending rows in id order, a page at a time.
CREATE INDEX IF NOT EXISTS deliveries_pending_jobs ON deliveries (id) INCLUDE (job_id, job_at) WHERE status = 'pending';
