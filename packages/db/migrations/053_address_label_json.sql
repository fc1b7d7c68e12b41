-- Each label also as a JSON string (quotes and escapes included), computed when the label is
-- written: every transfers record carries the labels of both its addresses and every owners
-- record its owner's, and to_json() on each of them took about a fifth of PostgreSQL's time for a
-- 100-record transfers page (it looks up the type's output function on every call).
CREATE OR REPLACE FUNCTION json_string(value text) RETURNS text
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  AS $$ SELECT to_json(value)::text $$;

ALTER TABLE address_labels
  ADD COLUMN IF NOT EXISTS label_json text GENERATED ALWAYS AS (json_string(label)) STORED;
