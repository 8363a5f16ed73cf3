-- Which control-plane process claimed an idempotency key (issue 32): a claim whose process died
-- (kill -9 mid-request) is taken over by a retry instead of answering "still being answered"
-- until the key's retention ends. Null on claims made before this column.
ALTER TABLE DY_IDEMPOTENCY ADD COLUMN CLAIMED_BY VARCHAR(100);
