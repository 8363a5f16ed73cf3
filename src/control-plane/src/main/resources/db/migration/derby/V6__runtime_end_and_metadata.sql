-- E2B's API (issue 30). A runtime's end time, a point in time at which a running one ends (E2B's timeout: now + timeout at
-- creation, moved by /timeout and /connect), and what happens then: 'STOP' or 'PAUSE'; null on
-- runtimes without one (Dockyard's own API: their TTL still caps them from creation).
ALTER TABLE DY_RUNTIME ADD COLUMN ENDS_AT TIMESTAMP;
ALTER TABLE DY_RUNTIME ADD COLUMN AT_END VARCHAR(8);
-- The template the runtime was asked for by (a pool's name or an image) and its caller's metadata,
-- a JSON object of strings; null on runtimes of Dockyard's own API.
ALTER TABLE DY_RUNTIME ADD COLUMN TEMPLATE VARCHAR(300);
ALTER TABLE DY_RUNTIME ADD COLUMN METADATA VARCHAR(16000);
