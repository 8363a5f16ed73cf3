package dev.dockyard.protocol;

/**
 * A command for the sandbox's persistent bash. With {@code isInput} the command is text (or a
 * control key such as {@code C-c}) for the program that is running; {@code isStatic} runs it in a
 * fresh process in {@code cwd} instead of the persistent shell.
 */
public record CmdRunAction(String command, boolean isInput, String thought, boolean blocking,
                           boolean isStatic, String cwd, boolean hidden, SecurityRisk securityRisk,
                           Double timeout) implements Action {

    public CmdRunAction {
        command = command == null ? "" : command;
        thought = thought == null ? "" : thought;
        securityRisk = securityRisk == null ? SecurityRisk.UNKNOWN : securityRisk;
    }

    /** A plain blocking-by-default command with the executor's default timeout. */
    public static CmdRunAction of(String command) {
        return new CmdRunAction(command, false, "", false, false, null, false, SecurityRisk.UNKNOWN, null);
    }

    @Override
    public ActionType type() {
        return ActionType.RUN;
    }
}
