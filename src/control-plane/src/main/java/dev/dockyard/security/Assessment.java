package dev.dockyard.security;

import dev.dockyard.protocol.SecurityRisk;

import java.util.List;

/** The analyzer's verdict on one action: its risk and why (rule names, never the action's text). */
public record Assessment(SecurityRisk risk, List<String> reasons) {

    public static final Assessment LOW = new Assessment(SecurityRisk.LOW, List.of());

    public Assessment {
        reasons = List.copyOf(reasons);
    }

    static SecurityRisk higher(SecurityRisk a, SecurityRisk b) {
        return a.wireValue() >= b.wireValue() ? a : b;
    }
}
