/**
 * The runtime's one persistent bash, behaving for an agent as OpenHands' shell in tmux does.
 * {@link dev.dockyard.executor.bash.BashSession} runs bash on a real pseudo-terminal under
 * {@code script(1)}, so that job control, control keys and interactive programs work as for a person.
 * A command is complete when the {@code Prompt} (exit code, working directory and more between two
 * markers) appears in the output, so no polling interval is paid; {@code ScreenText} renders the raw
 * stream as OpenHands reads its tmux pane, and {@code OutputBuffer} keeps it bounded. gVisor's terminal
 * turns no key into a signal, so there {@code ForegroundJob} and {@code ProcessStat} find the foreground
 * job in {@code /proc} and the executor signals it itself. {@link dev.dockyard.executor.bash.StaticCommand}
 * runs an {@code is_static} command in a fresh {@code bash -c}, killed at its timeout, since nobody could
 * interact with it afterwards.
 */
package dev.dockyard.executor.bash;
