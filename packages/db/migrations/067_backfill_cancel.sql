-- An operator can cancel a backfill request (`pnpm admin backfill cancel`): a wrong range must be
-- stoppable. A cancelled request is finished too (finished_at set with cancelled_at), so every
-- query of open requests (the follower's next one, `pnpm status`) skips it without a change; the
-- follower's advance touches only rows that are not cancelled, so a chunk in flight when the
-- cancel lands cannot reopen it.
ALTER TABLE backfill_requests ADD COLUMN IF NOT EXISTS cancelled_at timestamptz;
