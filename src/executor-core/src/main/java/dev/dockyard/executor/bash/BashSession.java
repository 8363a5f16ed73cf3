package dev.dockyard.executor.bash;

import dev.dockyard.protocol.CmdOutputMetadata;
import dev.dockyard.protocol.CmdOutputObservation;
import dev.dockyard.protocol.CmdRunAction;
import dev.dockyard.protocol.PythonNumbers;
import dev.dockyard.protocol.PythonStrings;
import dev.dockyard.protocol.Truncation;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The one persistent bash of a sandbox, on a real pseudo-terminal.
 *
 * <p>bash runs under {@code script(1)}, which gives it a terminal so that job control, control
 * keys ({@code C-c} becomes SIGINT for the foreground job) and interactive programs behave as for
 * a person. A reader thread appends everything the terminal prints to a bounded buffer and wakes
 * the waiting action; a command is complete when the {@link Prompt} appears, so there is no
 * polling interval to pay on every command. The agent gets the output as OpenHands' tmux pane
 * shows it ({@link ScreenText}: colours gone, carriage returns applied, stripped).
 *
 * <p>A command that outlives its hard timeout (or, when not blocking, prints nothing for the
 * no-output timeout) keeps running; the observation says so and the agent may then send an empty
 * command to read more, {@code is_input} text, or a control key. A new command is refused while
 * one still runs. Not thread-safe by design: the caller runs one action at a time.
 *
 * <p>The terminal is in canonical mode (that is what makes {@code C-d} an end of input for
 * {@code cat}), and canonical mode keeps at most 4095 bytes of a line, interprets control
 * characters and turns a carriage return into a newline. So a command is typed only when it is
 * short and plain; anything else is written to a file in the shell's private directory (the
 * sandbox user's, mode 600) and sourced by a short typed line: it runs in the current shell, as
 * one unit, exactly as sent. Long {@code is_input} lines are pushed to the reader in pieces.
 *
 * <p>A control key is written to the terminal as a byte where the terminal shows its foreground
 * process group (a kernel's terminal, e.g. under runc): its line discipline turns the byte into the
 * signal. gVisor's terminal (runsc 2022-12-19) turns no key into a signal and shows no foreground
 * group, so there the executor sends SIGINT, SIGTSTP or SIGQUIT itself to the {@link ForegroundJob}
 * while the terminal is in signal mode ({@code isig}), and writes the byte otherwise (a program
 * reading raw keys gets the key). C-d stays a byte everywhere: an end of input is the line
 * discipline's alone, and that runsc never gives a reader the empty read that means it.
 *
 * <p>Longer than the house's 500 lines on purpose: the terminal, the running command and the
 * reader are one state machine, and the pieces that can stand alone already do ({@code Prompt},
 * {@code ScreenText}, {@code OutputBuffer}, {@code ForegroundJob}).
 */
public final class BashSession implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(BashSession.class.getName());

    static final String TIMEOUT_HINT = "You may wait longer to see additional output by sending empty command '', "
            + "send other commands to interact with the current process, "
            + "send keys (\"C-c\", \"C-z\", \"C-d\") to interrupt/kill the previous command before sending your "
            + "new command, or use the timeout parameter in execute_bash for future commands.";
    static final String CONTINUED_PREFIX = "[Below is the output of the previous command.]\n";
    /** Below the terminal's 4095-byte line: longer commands go through a file. */
    static final int MAX_TYPED_BYTES = 4000;
    /** One piece of a long input line, in chars: at most 4 bytes each, below the terminal's line. */
    static final int INPUT_PIECE_CHARS = 1000;
    private static final char END_OF_FILE = '\u0004';
    /** The signals a terminal in signal mode makes of the keys (C-c, C-z, C-\\), by kill(1)'s names. */
    private static final Map<Character, String> KEY_SIGNALS = Map.of('\u0003', "INT", '\u001a', "TSTP",
            '\u001c', "QUIT");
    /** The shell variable holding PS1, which PROMPT_COMMAND copies into PS1 before every prompt. */
    static final String PS1_VARIABLE = "__dockyard_ps1";

    /**
     * How long a new shell has to show its first prompt. Generous: at the soak's load average of
     * 123 (2026-12-02 16:12, 16:27, 16:29) three shells had echoed their setup line and printed
     * bash's own prompt, yet not the executor's within the 30 s this used to be, and their
     * executors refused to run, so their provisions ended in ERROR. The control plane's readiness
     * limit (120 s from the boot's turn) is the bound that counts; a shell that exits fails at once.
     * An action that finds its shell dead and starts another waits as long for it at most.
     */
    static final Duration START_LIMIT = Duration.ofSeconds(90);

    private final Process process;
    private final OutputStream terminal;
    private final Object lock = new Object();
    private final OutputBuffer buffer = new OutputBuffer();
    private final Duration noOutputTimeout;
    private final Path scripts;
    private final String shell;

    // all guarded by lock
    /** Whether keys become signals sent by the executor rather than by the terminal. */
    private boolean signalsByExecutor;
    /** When the running command was typed (kept when signalsByExecutor only). */
    private ForegroundJob.Typed typed = new ForegroundJob.Typed(0, 0, Set.of());
    private long scriptCount;
    /** The file the running (or last) long command was sourced from; removed once it is done. */
    private Path script;
    private long lastOutputNanos = System.nanoTime();
    private boolean exited;
    private boolean running;
    private CmdOutputMetadata lastPrompt;

    private BashSession(Process process, String shell, Duration noOutputTimeout, Path scripts) {
        this.process = process;
        this.shell = shell;
        this.scripts = scripts;
        this.terminal = process.getOutputStream();
        this.noOutputTimeout = noOutputTimeout;
    }

    /**
     * Starts bash in {@code workdir} and waits for its first prompt.
     *
     * @param environment the variables the shell inherits (secrets of the executor already removed)
     * @param scripts a directory only the sandbox user can read, for commands too long to type
     */
    public static BashSession start(String shell, Path workdir, Map<String, String> environment,
                                    Duration noOutputTimeout, Path scripts) throws IOException {
        return start(shell, workdir, environment, noOutputTimeout, scripts, false);
    }

    /**
     * As {@link #start(String, Path, Map, Duration, Path)}; {@code executorSignals} makes the
     * executor send the keys' signals even where the terminal would (tests of that path on a
     * kernel's terminal).
     */
    static BashSession start(String shell, Path workdir, Map<String, String> environment,
                             Duration noOutputTimeout, Path scripts, boolean executorSignals) throws IOException {
        return start(shell, workdir, environment, noOutputTimeout, scripts, executorSignals, START_LIMIT);
    }

    /** As above, with {@code startLimit} in place of {@link #START_LIMIT} (tests of slow shells). */
    static BashSession start(String shell, Path workdir, Map<String, String> environment, Duration noOutputTimeout,
                             Path scripts, boolean executorSignals, Duration startLimit) throws IOException {
        String bash = shell + " --noediting --noprofile --norc -i";
        // A signal ignored when a shell starts stays ignored for everything it runs, and a parent
        // started in the background (nohup, `cmd &` in a script) ignores SIGINT: C-c would then do
        // nothing. Reset the job-control signals before bash starts, where env can.
        String command = "if env --default-signal=INT true 2>/dev/null; then exec env "
                + "--default-signal=INT,QUIT,TSTP,TTIN,TTOU " + bash + "; else exec " + bash + "; fi";
        ProcessBuilder builder = new ProcessBuilder("script", "-qfec", command, "/dev/null")
                .directory(workdir.toFile())
                .redirectErrorStream(true);
        builder.environment().clear();
        builder.environment().putAll(environment);
        builder.environment().putIfAbsent("TERM", "xterm-256color");
        builder.environment().putIfAbsent("PAGER", "cat");
        builder.environment().putIfAbsent("GIT_PAGER", "cat");
        BashSession session = new BashSession(builder.start(), shell, noOutputTimeout, scripts);
        session.startReader();
        session.initialise(workdir, startLimit);
        synchronized (session.lock) {
            session.signalsByExecutor = executorSignals || !session.terminalShowsForegroundGroup();
        }
        return session;
    }

    private void startReader() {
        Thread reader = new Thread(this::pump, "bash-output");
        reader.setDaemon(true);
        reader.start();
    }

    private void pump() {
        char[] chunk = new char[16 * 1024];
        try (Reader out = new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8)) {
            int n;
            while ((n = out.read(chunk)) >= 0) {
                synchronized (lock) {
                    buffer.append(chunk, 0, n);
                    lastOutputNanos = System.nanoTime();
                    lock.notifyAll();
                }
            }
        } catch (IOException e) {
            LOG.log(Level.FINE, "shell output closed", e);
        } finally {
            synchronized (lock) {
                exited = true;
                lock.notifyAll();
            }
        }
    }

    private void initialise(Path workdir, Duration startLimit) throws IOException {
        // The markers are split by quotes so that the echo of this very line (echo is still on
        // while it is typed) can never be mistaken for a prompt. PS1 is set again before every
        // prompt, as OpenHands' PROMPT_COMMAND does, so that a command changing it (a virtual
        // environment's activate script prefixes "(venv) ") cannot leave text after the output.
        String ps1 = Prompt.PS1.replace(Prompt.BEGIN, "###DOCKYARD_''PS1###").replace(Prompt.END, "###DOCKYARD_''PS1_END###");
        String init = "stty -echo -onlcr cols " + ScreenText.COLUMNS + " 2>/dev/null; export PS2=''; "
                + PS1_VARIABLE + "='" + ps1 + "'; PS1=$" + PS1_VARIABLE + "; PROMPT_COMMAND='PS1=$" + PS1_VARIABLE
                + "'; cd " + shellQuote(workdir.toString()) + "\n";
        synchronized (lock) {
            write(init);
            long deadline = System.nanoTime() + startLimit.toNanos();
            Optional<Prompt.Match> prompt;
            while ((prompt = Prompt.find(buffer)).isEmpty()) {
                long left = deadline - System.nanoTime();
                if (exited || left <= 0) {
                    String output = buffer.substring(0, buffer.length());
                    close();
                    throw new IOException("bash did not start: " + Truncation.middle(output, 2000));
                }
                waitForOutput(left);
            }
            lastPrompt = prompt.get().metadata();
            buffer.discardBefore(prompt.get().end());
        }
    }

    /** The working directory the last prompt reported: where relative paths of file actions start. */
    public Path workingDirectory() {
        synchronized (lock) {
            return Path.of(lastPrompt.workingDir());
        }
    }

    /** The {@code script} process holding the shell's terminal; the shell and its jobs are its descendants. */
    public ProcessHandle process() {
        return process.toHandle();
    }

    public boolean isAlive() {
        synchronized (lock) {
            return !exited;
        }
    }

    /** Carries out a {@code run} action in the persistent shell; see the class comment for the rules. */
    public CmdOutputObservation execute(CmdRunAction action, Duration hardTimeout) throws IOException {
        String command = PythonStrings.strip(action.command());
        synchronized (lock) {
            if (running) {
                Optional<Prompt.Match> done = Prompt.find(buffer);
                if (done.isPresent() && command.isEmpty()) {
                    return complete(done.get(), command, action.hidden(), "");
                }
                if (done.isPresent()) {
                    // the previous command ended after its observation was sent: nothing waits for it
                    lastPrompt = done.get().metadata();
                    buffer.discardBefore(done.get().end());
                    running = false;
                    forgetScript();
                }
            }
            if (exited) {
                return new CmdOutputObservation("ERROR: The shell has exited; a new one starts with the next action.",
                        command, action.hidden(), CmdOutputMetadata.unknown());
            }
            String prefix = "";
            String keySuffix = "";
            if (!running) {
                if (command.isEmpty()) {
                    return new CmdOutputObservation("ERROR: No previous running command to retrieve logs from.",
                            "", false, CmdOutputMetadata.unknown());
                }
                if (action.isInput()) {
                    return new CmdOutputObservation("ERROR: No previous running command to interact with.",
                            "", false, CmdOutputMetadata.unknown());
                }
                buffer.clear();
                lastOutputNanos = System.nanoTime();
                if (signalsByExecutor) {
                    typed = ForegroundJob.Typed.now(command, this::shellChildren);
                }
                write(typedLine(asOneUnit(command)));
                running = true;
            } else {
                prefix = CONTINUED_PREFIX;
                if (action.isInput() && ControlKey.isSpecialKey(command)) {
                    sendKey(command);
                    keySuffix = " CTRL+" + ControlKey.shownName(command) + " was sent.";
                } else if (action.isInput()) {
                    writeInput(command);
                } else if (!command.isEmpty()) {
                    String output = takeUnconsumed();
                    var metadata = CmdOutputMetadata.unknown().withNotes(CONTINUED_PREFIX,
                            "\n[Your command \"" + command + "\" is NOT executed. The previous command is still "
                                    + "running - You CANNOT send new commands until the previous command is completed. "
                                    + "By setting `is_input` to `true`, you can interact with the current process: "
                                    + TIMEOUT_HINT + "]");
                    return new CmdOutputObservation(output, command, action.hidden(), metadata);
                }
                lastOutputNanos = System.nanoTime();
            }
            return awaitCompletion(command, action, hardTimeout, prefix, keySuffix);
        }
    }

    /**
     * Runs a command of the executor's own (its observation is nobody's) unless the agent's
     * command is still running; a command that ended unseen counts as done, as for
     * {@link #execute}.
     *
     * @return whether it ran to its prompt with exit code 0
     */
    public boolean runIfIdle(CmdRunAction action, Duration hardTimeout) throws IOException {
        synchronized (lock) {
            if (running) {
                Optional<Prompt.Match> done = Prompt.find(buffer);
                if (done.isEmpty()) {
                    return false;
                }
                lastPrompt = done.get().metadata();
                buffer.discardBefore(done.get().end());
                running = false;
                forgetScript();
            }
            if (exited) {
                return false;
            }
            CmdOutputObservation result = execute(action, hardTimeout);
            return !running && result.metadata().exitCode() == 0;
        }
    }

    private CmdOutputObservation awaitCompletion(String command, CmdRunAction action, Duration hardTimeout,
                                                 String prefix, String keySuffix) {
        long deadline = System.nanoTime() + hardTimeout.toNanos();
        long noOutputNanos = noOutputTimeout.toNanos();
        while (true) {
            Optional<Prompt.Match> done = Prompt.find(buffer);
            if (done.isPresent()) {
                return complete(done.get(), command, action.hidden(), keySuffix);
            }
            long now = System.nanoTime();
            if (exited) {
                running = false;
                var metadata = CmdOutputMetadata.unknown().withNotes(prefix,
                        "\n[The shell exited. A new shell starts with the next command.]");
                return new CmdOutputObservation(takeUnconsumed(), command, action.hidden(), metadata);
            }
            if (now - deadline >= 0) {
                var metadata = CmdOutputMetadata.unknown().withNotes(prefix, "\n[The command timed out after "
                        + PythonNumbers.seconds(action.timeout(), hardTimeout) + " seconds. " + TIMEOUT_HINT + "]");
                return new CmdOutputObservation(takeUnconsumed(), command, action.hidden(), metadata);
            }
            long quietSince = now - lastOutputNanos;
            if (!action.blocking() && quietSince >= noOutputNanos) {
                var metadata = CmdOutputMetadata.unknown().withNotes(prefix, "\n[The command has no new output after "
                        + noOutputTimeout.toSeconds() + " seconds. " + TIMEOUT_HINT + "]");
                return new CmdOutputObservation(takeUnconsumed(), command, action.hidden(), metadata);
            }
            long wait = deadline - now;
            if (!action.blocking()) {
                wait = Math.min(wait, noOutputNanos - quietSince);
            }
            waitForOutput(wait);
        }
    }

    /**
     * A finished command. Its prefix is empty even when it finishes after a timeout: OpenHands'
     * {@code _handle_completed_command} resets it (its tests assert {@code prefix == ''} there).
     */
    private CmdOutputObservation complete(Prompt.Match prompt, String command, boolean hidden, String keySuffix) {
        String output = clean(buffer.substring(Math.min(buffer.consumed(), prompt.start()), prompt.start()));
        buffer.discardBefore(prompt.end());
        running = false;
        forgetScript();
        lastPrompt = prompt.metadata();
        var metadata = prompt.metadata().withNotes("",
                "\n[The command completed with exit code " + prompt.metadata().exitCode() + "." + keySuffix + "]");
        return new CmdOutputObservation(output, command, hidden, metadata);
    }

    /** Output the agent has not seen yet; marks it seen. */
    private String takeUnconsumed() {
        int from = Math.min(buffer.consumed(), buffer.length());
        String output = clean(buffer.substring(from, buffer.length()));
        buffer.consumeTo(buffer.length());
        return output;
    }

    /**
     * Several lines become one brace group: bash parses all of it before running any, runs it in
     * the current shell (cd and variables persist), and prints one prompt at the end, so the
     * observation holds every command's output and the last one's exit code. A syntax error
     * anywhere runs nothing, as a script would.
     */
    static String asOneUnit(String command) {
        return command.indexOf('\n') < 0 ? command : "{\n" + command + "\n}";
    }

    /**
     * What is typed for a command: the command itself when the terminal passes it on untouched,
     * else a line that sources it from a file. {@code source} reads the whole file before it runs
     * anything, keeps {@code $?}, and its status is the command's; the backslash keeps an alias
     * named {@code builtin} out of the way.
     */
    private String typedLine(String unit) throws IOException {
        forgetScript();
        if (typeable(unit)) {
            return unit + "\n";
        }
        Files.createDirectories(scripts);
        Path file = scripts.resolve("command-" + ProcessHandle.current().pid() + "-" + (++scriptCount) + ".sh");
        Files.deleteIfExists(file);
        Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.writeString(file, unit + "\n", StandardCharsets.UTF_8);
        script = file;
        return "\\builtin source " + shellQuote(file.toString()) + "\n";
    }

    /** Short, and nothing the terminal would act on (a carriage return, C-c, C-u, DEL...). */
    static boolean typeable(String unit) {
        if (unit.length() > MAX_TYPED_BYTES || unit.getBytes(StandardCharsets.UTF_8).length > MAX_TYPED_BYTES) {
            return false;
        }
        for (int i = 0; i < unit.length(); i++) {
            char c = unit.charAt(i);
            if (c < ' ' && c != '\n' && c != '\t' || c == '\u007f') {
                return false;
            }
        }
        return true;
    }

    private void forgetScript() {
        if (script != null) {
            try {
                Files.deleteIfExists(script);
            } catch (IOException e) {
                LOG.log(Level.FINE, "could not remove " + script, e);
            }
            script = null;
        }
    }

    /**
     * Text for the running program. A line of the terminal holds at most 4095 bytes in canonical
     * mode; a longer one is sent in pieces, each pushed to the reader by an end-of-file character
     * (which, after text on the line, ends a read without ending the input), so a program reading
     * lines gets the whole line. A program that switched the terminal to raw mode has no such
     * limit and gets the text as it is.
     */
    private void writeInput(String text) throws IOException {
        String line = text + "\n";
        if (line.getBytes(StandardCharsets.UTF_8).length <= MAX_TYPED_BYTES || !canonicalTerminal()) {
            write(line);
            return;
        }
        StringBuilder pieces = new StringBuilder(line.length() + line.length() / INPUT_PIECE_CHARS + 1);
        int sinceBreak = 0;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            boolean pairContinues = Character.isLowSurrogate(c);
            if (sinceBreak >= INPUT_PIECE_CHARS && !pairContinues) {
                pieces.append(END_OF_FILE);
                sinceBreak = 0;
            }
            pieces.append(c);
            sinceBreak = c == '\n' ? 0 : sinceBreak + 1;
        }
        write(pieces.toString());
    }

    /**
     * Whether the shell's terminal is in canonical (line) mode now, as {@code stty} reports it.
     * Canonical is the mode the shell set up, so it is the answer when the mode cannot be read.
     */
    private boolean canonicalTerminal() {
        return terminalSettings().map(settings -> !settings.contains("-icanon")).orElse(true);
    }

    /** Whether the terminal is in signal mode ({@code isig}): the mode the shell set up. */
    private boolean signallingTerminal() {
        return terminalSettings().map(settings -> !settings.contains("-isig")).orElse(true);
    }

    /** {@code stty -a} of the shell's terminal; empty when it cannot be read. */
    private Optional<String> terminalSettings() {
        Optional<ProcessHandle> shellProcess = process.children().findFirst();
        if (shellProcess.isEmpty()) {
            return Optional.empty();
        }
        try {
            Path tty = Files.readSymbolicLink(Path.of("/proc", String.valueOf(shellProcess.get().pid()), "fd", "0"));
            Process stty = new ProcessBuilder("stty", "-a", "-F", tty.toString()).redirectErrorStream(true).start();
            String settings = new String(stty.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!stty.waitFor(5, TimeUnit.SECONDS) || stty.exitValue() != 0) {
                LOG.fine(() -> "stty could not read the terminal's mode: " + settings.strip());
                return Optional.empty();
            }
            return Optional.of(settings);
        } catch (IOException e) {
            LOG.log(Level.FINE, "the terminal's mode is unknown", e);
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    /**
     * Whether the kernel shows the shell's terminal's foreground group: where it does, its line
     * discipline also turns keys into signals (runc); gVisor shows none.
     */
    private boolean terminalShowsForegroundGroup() {
        return process.children().findFirst()
                .flatMap(shellProcess -> ProcessStat.of(shellProcess.pid()))
                .map(stat -> stat.terminalGroup() > 0)
                .orElse(true);
    }

    /**
     * A special key ({@code C-x}) for the running command, as tmux's {@code send-keys} types it
     * ({@link ControlKey}): the byte, unless the executor stands in for the terminal's signals
     * (see the class comment); the byte too when no job or no signal can be found or sent, which
     * is what the terminal had before.
     */
    private void sendKey(String key) throws IOException {
        String keyText = ControlKey.typed(key);
        String signal = keyText.length() == 1 ? KEY_SIGNALS.get(keyText.charAt(0)) : null;
        if (signal != null && signalsByExecutor && signallingTerminal()) {
            Optional<ForegroundJob> job = process.children().findFirst()
                    .flatMap(shellProcess -> ProcessStat.of(shellProcess.pid()))
                    .map(shellStat -> ForegroundJob.of(shellStat, shellChildren(), typed));
            if (job.isPresent() && kill(signal, job.get())) {
                return;
            }
        }
        if (!keyText.isEmpty()) {
            write(keyText);
        }
    }

    /** The shell's child processes now, those still there to read. */
    private List<ProcessStat> shellChildren() {
        return process.children().findFirst().stream()
                .flatMap(ProcessHandle::children)
                .map(child -> ProcessStat.of(child.pid()))
                .flatMap(Optional::stream)
                .toList();
    }

    /** Sends a signal by the shell's own {@code kill}, the one every sandbox image has. */
    private boolean kill(String signal, ForegroundJob job) {
        try {
            ProcessBuilder builder = new ProcessBuilder(shell, "-c", "kill -s " + signal + " -- " + job.killTarget())
                    .redirectErrorStream(true);
            builder.environment().clear();
            Process kill = builder.start();
            String said = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!kill.waitFor(5, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                LOG.fine(() -> "kill -s " + signal + " " + job.killTarget() + " failed: " + said.strip());
                return false;
            }
            return true;
        } catch (IOException e) {
            LOG.log(Level.FINE, "could not send " + signal, e);
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** The output as OpenHands' tmux pane shows it ({@link ScreenText}), cut in the middle past 30,000 characters. */
    static String clean(String output) {
        return Truncation.middle(ScreenText.of(output));
    }

    private void write(String text) throws IOException {
        terminal.write(text.getBytes(StandardCharsets.UTF_8));
        terminal.flush();
    }

    private void waitForOutput(long nanos) {
        if (nanos <= 0) {
            return;
        }
        try {
            TimeUnit.NANOSECONDS.timedWait(lock, nanos);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the shell", e);
        }
    }

    public static String shellQuote(String s) {
        return "'" + s.replace("'", "'\\''") + "'";
    }

    @Override
    public void close() {
        synchronized (lock) {
            forgetScript();
        }
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
    }
}
