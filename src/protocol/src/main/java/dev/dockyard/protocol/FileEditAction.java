package dev.dockyard.protocol;

import java.util.List;

/**
 * The OpenHands file editor: {@code command} is one of view, create, str_replace, insert,
 * undo_edit; the legacy form (null command) replaces lines {@code start}..{@code end} with
 * {@code content}.
 */
public record FileEditAction(String path, String command, String fileText, String oldStr,
                             String newStr, Integer insertLine, List<Integer> viewRange,
                             String content, int start, int end, String implSource,
                             SecurityRisk securityRisk, Double timeout) implements Action {

    public FileEditAction {
        implSource = implSource == null ? "oh_aci" : implSource;
        viewRange = viewRange == null ? null : List.copyOf(viewRange);
        securityRisk = securityRisk == null ? SecurityRisk.UNKNOWN : securityRisk;
    }

    @Override
    public ActionType type() {
        return ActionType.EDIT;
    }
}
