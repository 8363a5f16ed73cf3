-- A runtime's confinement (issue 17): its egress policy (EgressPolicy.encode(); null: open) and the
-- runtime class, GPUs and extra networks its request asked for (JSON; null: the node's defaults).
ALTER TABLE DY_RUNTIME ADD COLUMN EGRESS VARCHAR(4000);
ALTER TABLE DY_RUNTIME ADD COLUMN SANDBOX_ISOLATION VARCHAR(2000);
