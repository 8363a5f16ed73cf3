-- A warm sandbox's image id is a path on a local node ("local-bundle:<root>/bundles/<hash>@<time>/…"),
-- longer than 100 characters under a root of a few directories: a pool there never became ready.
ALTER TABLE DY_POOL_MEMBER ALTER COLUMN IMAGE_ID SET DATA TYPE VARCHAR(4000);
