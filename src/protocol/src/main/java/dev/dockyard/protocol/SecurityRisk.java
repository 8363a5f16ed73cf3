package dev.dockyard.protocol;

/** The risk an action carries, as the integers of PROTOCOL.md: -1 unknown, 0 low, 1 medium, 2 high. */
public enum SecurityRisk {
    UNKNOWN(-1), LOW(0), MEDIUM(1), HIGH(2);

    private final int wireValue;

    SecurityRisk(int wireValue) {
        this.wireValue = wireValue;
    }

    public int wireValue() {
        return wireValue;
    }

    public static SecurityRisk fromWireValue(int value) {
        for (SecurityRisk risk : values()) {
            if (risk.wireValue == value) {
                return risk;
            }
        }
        throw new InvalidActionException("security_risk must be -1, 0, 1 or 2, not " + value);
    }
}
