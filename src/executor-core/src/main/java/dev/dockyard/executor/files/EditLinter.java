package dev.dockyard.executor.files;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.Stream;

/**
 * The editor's auto-lint (OpenHands' {@code enable_auto_lint}, openhands-aci's
 * {@code enable_linting}): the errors a change introduced into a Python file, in the words
 * openhands-aci's editor appends to its answer.
 *
 * <p>The model is openhands-aci's: a file's errors are flake8's (its fatal codes only) or, where
 * flake8 finds nothing, the first {@code SyntaxError} of compiling it. Of the changed file's errors
 * those count that are on a line the change replaced, or on an unchanged line that had no error of
 * the same column and message before, lines being lined up by difflib's {@link Difflib#opcodes} —
 * with openhands-aci's quirk kept that a pure insertion marks no line as changed. flake8 and the
 * compile run in the sandbox (the image has flake8 and python3); the rest happens here. Files of
 * other types are not linted (openhands-aci's tree-sitter fallback is not in the image).
 */
public class EditLinter {

    private static final Logger LOG = Logger.getLogger(EditLinter.class.getName());
    static final String NO_ISSUES = "No linting issues found in the changes.";
    /** The flake8 codes openhands-aci treats as fatal: undefined names, bad indentation, syntax. */
    static final String FATAL = "F821,F822,F831,E112,E113,E999,E902";
    private static final long TIMEOUT_SECONDS = 60;
    /** Prints the first SyntaxError of compiling argv[1] as "line\tcolumn\tmessage", or nothing. */
    private static final String COMPILE = String.join("\n",
            "import sys",
            "path = sys.argv[1]",
            "try:",
            "    compile(open(path).read(), path, 'exec')",
            "except SyntaxError as e:",
            "    line = getattr(e, 'end_lineno', None) or e.lineno or 1",
            "    column = getattr(e, 'end_offset', None)",
            "    if column and column < 0:",
            "        column = e.offset",
            "    print(f'{line}\\t{column or 1}\\t{e.msg}')");

    private final String python;
    private final String flake8;

    public EditLinter() {
        this("python3");
    }

    EditLinter(String python) {
        this(python, "flake8");
    }

    EditLinter(String python, String flake8) {
        this.python = python;
        this.flake8 = flake8;
    }

    /** One error: 1-based line and column, and flake8's or the compiler's message. */
    record Issue(int line, int column, String message) {
    }

    /** The linter could not run: the answer then reads as with linting off. */
    private static final class NotRun extends Exception {
        private static final long serialVersionUID = 1L;

        NotRun(String why, Throwable cause) {
            super(why, cause);
        }
    }

    /**
     * openhands-aci's {@code _run_linting} text for a change of {@code path} from {@code before} to
     * {@code after}; empty when the linter could not run (no python3, a timeout), so the answer
     * then reads as with linting off rather than claiming a clean file.
     */
    public Optional<String> report(Path path, String before, String after) {
        if (!path.getFileName().toString().endsWith(".py")) {
            return Optional.of(NO_ISSUES);
        }
        return lint(path.getFileName().toString(), before, after).map(EditLinter::format);
    }

    static String format(List<Issue> issues) {
        if (issues.isEmpty()) {
            return NO_ISSUES;
        }
        StringBuilder out = new StringBuilder("Linting issues found in the changes:");
        for (Issue issue : issues) {
            out.append("\n- Line ").append(issue.line()).append(", Column ").append(issue.column()).append(": ")
                    .append(issue.message());
        }
        return out.append('\n').toString();
    }

    Optional<List<Issue>> lint(String name, String before, String after) {
        Path dir = null;
        try {
            dir = Files.createTempDirectory("dockyard-lint");
            Path old = Files.writeString(dir.resolve("old." + name), before, StandardCharsets.UTF_8);
            Path updated = Files.writeString(dir.resolve("new." + name), after, StandardCharsets.UTF_8);
            return Optional.of(introduced(issues(old, dir), issues(updated, dir), lines(before), lines(after)));
        } catch (NotRun e) {
            LOG.log(Level.WARNING, "the lint of an edit did not run (" + e.getMessage() + "): answered without it",
                    e.getCause());
            return Optional.empty();
        } catch (IOException e) {
            LOG.log(Level.WARNING, "the lint of an edit could not run: answered without it", e);
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        } finally {
            deleteQuietly(dir);
        }
    }

    /** The errors of {@code after} that {@code before} did not have, ordered by line and column. */
    static List<Issue> introduced(List<Issue> before, List<Issue> after, List<String> oldLines,
                                  List<String> newLines) {
        Map<Integer, Integer> oldToNew = new HashMap<>();
        Set<Integer> changed = new HashSet<>();
        for (Difflib.Opcode op : Difflib.opcodes(oldLines, newLines)) {
            if (op.tag().equals("equal")) {
                for (int i = 0; i < op.i2() - op.i1(); i++) {
                    oldToNew.put(op.i1() + i + 1, op.j1() + i + 1);
                }
            } else if (op.tag().equals("replace") || op.tag().equals("insert")) {
                // counted over the old side, as openhands-aci does: an insertion marks nothing
                for (int i = 0; i < op.i2() - op.i1(); i++) {
                    changed.add(op.j1() + i + 1);
                }
            }
        }
        Map<Integer, List<Issue>> hadBefore = new HashMap<>();
        for (Issue issue : before) {
            Integer moved = oldToNew.get(issue.line());
            if (moved != null) {
                hadBefore.computeIfAbsent(moved, l -> new ArrayList<>()).add(issue);
            }
        }
        List<Issue> introduced = new ArrayList<>();
        for (Issue issue : after) {
            List<Issue> old = hadBefore.get(issue.line());
            boolean known = !changed.contains(issue.line()) && old != null && old.stream()
                    .anyMatch(o -> o.message().equals(issue.message()) && o.column() == issue.column());
            if (!known) {
                introduced.add(issue);
            }
        }
        introduced.sort(Comparator.comparingInt(Issue::line).thenComparingInt(Issue::column));
        return introduced;
    }

    /** A file's errors: flake8's, or else the compiler's first. */
    private List<Issue> issues(Path file, Path dir) throws IOException, InterruptedException, NotRun {
        List<Issue> flake = flake8(run(dir, true, flake8, "--select=" + FATAL, "--isolated", file.toString()));
        if (!flake.isEmpty()) {
            return flake;
        }
        String compiled = run(dir, false, python, "-c", COMPILE, file.toString()).strip();
        if (compiled.isEmpty()) {
            return List.of();
        }
        String[] parts = compiled.split("\t", 3);
        return List.of(new Issue(Integer.parseInt(parts[0]), Integer.parseInt(parts[1]), parts[2]));
    }

    /**
     * flake8's {@code path:line:column: message} lines as openhands-aci reads them: split on every
     * colon, the message the fourth part (and the fifth after ": "), a line without a line number
     * skipped, a column that is not a number read as 1 with its text put before the message.
     */
    static List<Issue> flake8(String output) {
        List<Issue> issues = new ArrayList<>();
        for (String line : output.split("\n")) {
            String[] parts = line.split(":", -1);
            if (parts.length < 4) {
                continue;
            }
            String message = parts[3].strip();
            if (parts.length > 4) {
                message += ": " + parts[4].strip();
            }
            int lineNumber;
            try {
                lineNumber = Integer.parseInt(parts[1]);
            } catch (NumberFormatException e) {
                continue;
            }
            int column;
            try {
                column = Integer.parseInt(parts[2]);
            } catch (NumberFormatException e) {
                column = 1;
                message = parts[2].strip() + " " + message;
            }
            issues.add(new Issue(lineNumber, column, message));
        }
        return issues;
    }

    /**
     * A command's standard output. {@code optional}: a command that is not installed gives no output
     * (openhands-aci runs flake8 through a shell, where a missing one prints nothing on stdout);
     * otherwise it cannot run, nor can a command that overruns or fails.
     */
    private static String run(Path dir, boolean optional, String... command)
            throws IOException, InterruptedException, NotRun {
        Process process;
        try {
            process = new ProcessBuilder(command).directory(dir.toFile())
                    .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        } catch (IOException notInstalled) {
            if (optional) {
                return "";
            }
            throw new NotRun(command[0] + " cannot start", notInstalled);
        }
        byte[] out;
        try (InputStream stdout = process.getInputStream()) {
            out = stdout.readAllBytes();
        }
        if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new NotRun(command[0] + " took over " + TIMEOUT_SECONDS + " s", null);
        }
        // flake8 exits 1 when it found something
        if (!optional && process.exitValue() != 0) {
            throw new NotRun(command[0] + " exited " + process.exitValue(), null);
        }
        return new String(out, StandardCharsets.UTF_8);
    }

    /** A text's lines with their terminators, as Python's readlines() in text mode reads them. */
    static List<String> lines(String text) {
        String universal = text.replace("\r\n", "\n").replace('\r', '\n');
        List<String> lines = new ArrayList<>();
        int start = 0;
        for (int i = 0; i < universal.length(); i++) {
            if (universal.charAt(i) == '\n') {
                lines.add(universal.substring(start, i + 1));
                start = i + 1;
            }
        }
        if (start < universal.length()) {
            lines.add(universal.substring(start));
        }
        return lines;
    }

    private static void deleteQuietly(Path dir) {
        if (dir == null) {
            return;
        }
        try (Stream<Path> all = Files.walk(dir)) {
            all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // a temporary directory left behind is harmless
        }
    }
}
