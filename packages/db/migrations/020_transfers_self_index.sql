-- Transfers from a wallet to itself, so that the wallet transfer count (sender side + receiver
-- side - self) is index-only on every term. Small: such transfers are rare.
CREATE INDEX IF NOT EXISTS transfers_self ON transfers (chain_id, from_address, block_number, token_address)
  WHERE from_address = to_address;
