-- Several control planes on one database (README "Two control planes"): named leases decide which
-- instance runs each singleton job, and instances' heartbeats are leases too (DY_LEASE); a starting
-- runtime records the instance that provisions it, so a survivor knows whose provisions died.
CREATE TABLE DY_LEASE (
    NAME VARCHAR(200) NOT NULL,
    HOLDER VARCHAR(100) NOT NULL,
    ACQUIRED_AT TIMESTAMP NOT NULL,
    RENEWED_AT TIMESTAMP NOT NULL,
    EXPIRES_AT TIMESTAMP NOT NULL,
    PRIMARY KEY (NAME)
);

ALTER TABLE DY_RUNTIME ADD COLUMN PROVISIONER VARCHAR(100);
