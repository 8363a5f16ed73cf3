-- How a sandbox starts its executor (DOCKYARD_EXECUTOR_SERVER: 'embedded' or 'liberty').
-- A runtime keeps its own so that it comes back the same way (revived, migrated, forked); null on a
-- runtime of another image's program (no executor) and on older rows, whose sandboxes ran Liberty.
ALTER TABLE DY_RUNTIME ADD COLUMN EXECUTOR_SERVER VARCHAR(16);
-- A pool keeps its members' so that claims match it; null on a program's pool (no executor) and on
-- pools declared before the choice, which boot the default ('embedded') until declared again.
ALTER TABLE DY_POOL ADD COLUMN EXECUTOR_SERVER VARCHAR(16);
