package dev.dockyard.executor.files;

import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonReader;
import jakarta.json.JsonValue;
import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.Stream;

/**
 * The editor's auto-lint (OpenHands' {@code enable_auto_lint}, openhands-aci's
 * {@code enable_linting}): the errors a change introduced into a Python file, in the words
 * openhands-aci's editor appends to its answer.
 *
 * <p>openhands-aci lints with flake8 (its fatal codes only) and, where flake8 finds nothing, a
 * {@code compile()} of the file; then keeps the errors on changed lines and the new ones
 * elsewhere, lining the two versions up with difflib. That logic is Python and must match
 * difflib's alignment exactly, so it runs as its own script ({@code lint_file_diff.py}, ported
 * from openhands-aci) in the sandbox's python3, where the image's flake8 is. Files of other types
 * are not linted (openhands-aci's tree-sitter fallback is not in the image).
 */
public class EditLinter {

    private static final Logger LOG = Logger.getLogger(EditLinter.class.getName());
    static final String NO_ISSUES = "No linting issues found in the changes.";
    private static final long TIMEOUT_SECONDS = 60;

    private final String python;
    private final String script;

    public EditLinter() {
        this("python3");
    }

    EditLinter(String python) {
        this.python = python;
        try (InputStream in = EditLinter.class.getResourceAsStream("lint_file_diff.py")) {
            this.script = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** One error: 1-based line and column, and flake8's or the compiler's message. */
    record Issue(int line, int column, String message) {
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
            Process process = new ProcessBuilder(python, "-c", script, old.toString(), updated.toString())
                    .directory(dir.toFile()).redirectError(ProcessBuilder.Redirect.DISCARD).start();
            byte[] out;
            try (InputStream stdout = process.getInputStream()) {
                out = stdout.readAllBytes();
            }
            if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                LOG.warning("the lint of an edit took over " + TIMEOUT_SECONDS + " s: answered without it");
                return Optional.empty();
            }
            if (process.exitValue() != 0) {
                LOG.warning("the lint of an edit failed (exit " + process.exitValue() + "): answered without it");
                return Optional.empty();
            }
            return Optional.of(parse(new String(out, StandardCharsets.UTF_8)));
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

    private static List<Issue> parse(String json) {
        List<Issue> issues = new ArrayList<>();
        try (JsonReader reader = Json.createReader(new StringReader(json))) {
            JsonArray all = reader.readArray();
            for (JsonValue item : all) {
                JsonArray issue = item.asJsonArray();
                issues.add(new Issue(issue.getInt(0), issue.getInt(1), issue.getString(2)));
            }
        }
        return issues;
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
