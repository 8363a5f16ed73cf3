-- The retention (application.retention) looks for audit entries and status changes older than a
-- cutoff every ten minutes on every control plane: by these, not by reading whole tables.
CREATE INDEX DY_AUDIT_RECORDED ON DY_AUDIT (RECORDED_AT);
CREATE INDEX DY_STATUS_CHANGE_AT ON DY_STATUS_CHANGE (CHANGED_AT);
