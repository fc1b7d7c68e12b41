-- The periodic supply check (projector): totalSupply() read from the node at a projected block,
-- compared with the supply the transfers add up to. A rebasing or fee-on-transfer token changes
-- balances without Transfer events; its indexed balances cannot be exact, and this says so.
ALTER TABLE tokens ADD COLUMN IF NOT EXISTS supply_checked_block bigint;
ALTER TABLE tokens ADD COLUMN IF NOT EXISTS chain_total_supply numeric(78, 0);
ALTER TABLE tokens ADD COLUMN IF NOT EXISTS supply_mismatch boolean NOT NULL DEFAULT false;
