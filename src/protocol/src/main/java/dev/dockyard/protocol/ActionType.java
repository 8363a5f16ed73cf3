package dev.dockyard.protocol;

import java.util.Arrays;
import java.util.Optional;

/** The action types of PROTOCOL.md, by their wire names. */
public enum ActionType {
    RUN("run"),
    RUN_IPYTHON("run_ipython"),
    READ("read"),
    WRITE("write"),
    EDIT("edit"),
    BROWSE("browse"),
    BROWSE_INTERACTIVE("browse_interactive");

    private final String wireName;

    ActionType(String wireName) {
        this.wireName = wireName;
    }

    public String wireName() {
        return wireName;
    }

    public static Optional<ActionType> fromWireName(String name) {
        return Arrays.stream(values()).filter(t -> t.wireName.equals(name)).findFirst();
    }
}
