package dev.dockyard.security;

import dev.dockyard.protocol.SecurityRisk;

import java.util.Locale;

/**
 * What a runtime does with a rated action (its agent's policy): block it at or above
 * {@code blockAt}, ask for confirmation at or above {@code confirmAt}, else run it. Null means never.
 */
public record SecurityPolicy(SecurityRisk confirmAt, SecurityRisk blockAt) {

    /** The default: HIGH needs confirmation, nothing is blocked outright. */
    public static final SecurityPolicy DEFAULT = new SecurityPolicy(SecurityRisk.HIGH, null);

    public enum Decision { ALLOW, CONFIRM, BLOCK }

    public Decision decide(SecurityRisk risk) {
        if (blockAt != null && risk.wireValue() >= blockAt.wireValue()) {
            return Decision.BLOCK;
        }
        if (confirmAt != null && risk.wireValue() >= confirmAt.wireValue()) {
            return Decision.CONFIRM;
        }
        return Decision.ALLOW;
    }

    /** LOW, MEDIUM, HIGH or NEVER (null), as configured. */
    public static SecurityRisk threshold(String value, String setting) {
        String v = value.strip().toUpperCase(Locale.ROOT);
        if (v.equals("NEVER") || v.equals("NONE")) {
            return null;
        }
        try {
            SecurityRisk risk = SecurityRisk.valueOf(v);
            if (risk != SecurityRisk.UNKNOWN) {
                return risk;
            }
        } catch (IllegalArgumentException e) {
            // below
        }
        throw new IllegalStateException(setting + " must be LOW, MEDIUM, HIGH or NEVER, not '" + value + "'");
    }
}
