-- When an operator last looked at the dead letters (`npm run admin -- dead-letters ack`): the
-- consumers' readiness and `npm run status` name the messages set aside after it, so that skipped
-- work is said until someone has looked. One row.
CREATE TABLE IF NOT EXISTS dead_letters_acknowledged (
  id              boolean     PRIMARY KEY DEFAULT true CHECK (id),
  acknowledged_at timestamptz NOT NULL
);
