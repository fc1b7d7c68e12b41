-- Ordered streams ("ordered": true): each confirmed webhook gets the stream's next sequence number
-- when the matcher stores it, in block order, gap-free (a number is taken only by a row that
-- exists). The sender sends a numbered delivery only once the one before it is settled
-- (delivered, or failed for good), and then hands its turn to the next.
ALTER TABLE streams ADD COLUMN IF NOT EXISTS last_sequence bigint NOT NULL DEFAULT 0;
ALTER TABLE deliveries ADD COLUMN IF NOT EXISTS sequence bigint;
CREATE INDEX IF NOT EXISTS deliveries_by_sequence ON deliveries (stream_id, sequence) WHERE sequence IS NOT NULL;
