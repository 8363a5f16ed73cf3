package dev.dockyard.api;

import dev.dockyard.audit.AuditEntry;
import dev.dockyard.jsonp.Jsonp;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import java.util.List;

/** Audit entries as the API shows them: {@code {"entries": [...]}}, newest first. */
final class AuditView {

    private AuditView() {
    }

    static JsonObject of(List<AuditEntry> entries) {
        JsonArrayBuilder list = Jsonp.createArrayBuilder();
        for (AuditEntry e : entries) {
            JsonObjectBuilder b = Jsonp.createObjectBuilder()
                    .add("at", e.at().toString())
                    .add("userId", e.userId())
                    .add("runtimeId", e.runtimeId())
                    .add("action", e.actionType())
                    .add("risk", e.risk())
                    .add("decision", e.decision())
                    .add("status", e.status())
                    .add("durationMs", e.durationMs())
                    .add("bytesOut", e.bytesOut());
            JsonArrayBuilder reasons = Jsonp.createArrayBuilder();
            if (e.reasons() != null && !e.reasons().isEmpty()) {
                for (String reason : e.reasons().split("; ")) {
                    reasons.add(reason);
                }
            }
            b.add("reasons", reasons);
            if (e.exitCode() == null) {
                b.addNull("exitCode");
            } else {
                b.add("exitCode", e.exitCode());
            }
            list.add(b);
        }
        return Jsonp.createObjectBuilder().add("entries", list).build();
    }
}
