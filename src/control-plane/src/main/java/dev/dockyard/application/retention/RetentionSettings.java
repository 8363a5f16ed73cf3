package dev.dockyard.application.retention;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * How long each kind of history is kept, in days ({@code 0}: forever). Read here, beside the one
 * class that applies them; docs/configuration.md lists them with the others.
 */
@ApplicationScoped
public class RetentionSettings {

    /** An ended runtime's row and its status changes, counted from when it ended. */
    @Inject
    @ConfigProperty(name = "dockyard.retention.runtimes-days", defaultValue = "30")
    int runtimesDays;

    /** A status change of any runtime, counted from when it was recorded (a long-lived runtime's older history). */
    @Inject
    @ConfigProperty(name = "dockyard.retention.events-days", defaultValue = "30")
    int eventsDays;

    /** An audit entry, counted from when it was recorded. */
    @Inject
    @ConfigProperty(name = "dockyard.retention.audit-days", defaultValue = "90")
    int auditDays;

    public RetentionSettings() {
    }

    /** For tests. */
    public RetentionSettings(int runtimesDays, int eventsDays, int auditDays) {
        this.runtimesDays = runtimesDays;
        this.eventsDays = eventsDays;
        this.auditDays = auditDays;
    }

    public Optional<Duration> runtimes() {
        return days("dockyard.retention.runtimes-days", runtimesDays);
    }

    public Optional<Duration> events() {
        return days("dockyard.retention.events-days", eventsDays);
    }

    public Optional<Duration> audit() {
        return days("dockyard.retention.audit-days", auditDays);
    }

    private static Optional<Duration> days(String name, int days) {
        if (days < 0) {
            throw new IllegalStateException(name + " must be 0 (keep forever) or a number of days, not " + days);
        }
        return days == 0 ? Optional.empty() : Optional.of(Duration.ofDays(days));
    }
}
