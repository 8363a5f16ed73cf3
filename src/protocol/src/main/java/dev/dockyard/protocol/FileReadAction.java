package dev.dockyard.protocol;

import java.util.List;

/**
 * Reads a file. {@code start}/{@code end} select lines (0-based, end -1 = to the end);
 * {@code viewRange} and {@code implSource} "oh_aci" select the numbered editor view instead.
 */
public record FileReadAction(String path, int start, int end, List<Integer> viewRange,
                             String implSource, SecurityRisk securityRisk, Double timeout)
        implements Action {

    public FileReadAction {
        implSource = implSource == null ? "default" : implSource;
        viewRange = viewRange == null ? null : List.copyOf(viewRange);
        securityRisk = securityRisk == null ? SecurityRisk.UNKNOWN : securityRisk;
    }

    public static FileReadAction of(String path) {
        return new FileReadAction(path, 0, -1, null, "default", SecurityRisk.UNKNOWN, null);
    }

    @Override
    public ActionType type() {
        return ActionType.READ;
    }
}
