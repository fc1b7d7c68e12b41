-- Webhook secret rotation: POST /settings keeps the secret it replaces valid until
-- previous_webhook_secret_valid_until (now + SECRET_ROTATION_WINDOW_MS at the rotation), so retries
-- in flight and receivers that have not switched yet still verify. Both null outside a rotation.
ALTER TABLE accounts ADD COLUMN IF NOT EXISTS previous_webhook_secret text;
ALTER TABLE accounts ADD COLUMN IF NOT EXISTS previous_webhook_secret_valid_until timestamptz;
