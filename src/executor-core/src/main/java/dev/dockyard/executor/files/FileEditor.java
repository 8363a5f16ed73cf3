package dev.dockyard.executor.files;

import dev.dockyard.protocol.ErrorObservation;
import dev.dockyard.protocol.FileEditAction;
import dev.dockyard.protocol.FileEditObservation;
import dev.dockyard.protocol.FileReadObservation;
import dev.dockyard.protocol.Observation;
import dev.dockyard.protocol.PythonStrings;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitOption;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The OpenHands file editor ({@code oh_aci}, openhands-aci 0.3.2 as OpenHands pins it): view,
 * create, str_replace, insert, undo_edit, with the texts agents were trained on, line ends and
 * numbering included (a file ending with a newline shows an empty last numbered line, as there).
 * A failed command answers {@code ERROR:\n<why>} in an edit observation, as OpenHands does; every
 * change carries a unified diff (no context lines, the path on both header lines) and can be
 * undone, {@value #HISTORY_PER_FILE} steps back per file. With {@link #lintEdits} on, str_replace
 * and insert of a .py file append the errors the change introduced ({@link EditLinter}); the
 * change is kept, as openhands-aci keeps it.
 *
 * <p>The undo history lives in the executor's bounded heap, so it is bounded too: at most
 * {@value #MAX_HISTORY_FILES} files and {@value #MAX_HISTORY_CHARS} characters in all. Beyond
 * either, the least recently edited file's history goes first; only when the file being edited
 * alone is over the budget does it lose its own oldest steps (its newest step is always kept).
 *
 * <p>Longer than the house's 500 lines on purpose: it is one port of openhands-aci's editor,
 * kept in one piece so that each command reads beside its Python original.
 */
public final class FileEditor {

    static final int HISTORY_PER_FILE = 10;
    static final int MAX_HISTORY_FILES = 64;
    static final long MAX_HISTORY_CHARS = 32L * 1024 * 1024;
    static final int SNIPPET_CONTEXT = 4;
    static final int MAX_RESPONSE_CHARS = 16_000;
    static final String FILE_TRUNCATED_NOTICE = "<response clipped><NOTE>Due to the max output limit, only part of "
            + "this file has been shown to you. You should retry this tool after you have searched inside the file "
            + "with `grep -n` in order to find the line numbers of what you are looking for.</NOTE>";
    static final String DIRECTORY_TRUNCATED_NOTICE = "<response clipped><NOTE>Due to the max output limit, only part "
            + "of this directory has been shown to you. You should use `ls -la` instead to view large directories "
            + "incrementally.</NOTE>";
    private static final String REVIEW = "Review the changes and make sure they are as expected. Edit the file again "
            + "if necessary.";
    private static final String REVIEW_INSERT = "Review the changes and make sure they are as expected (correct "
            + "indentation, no duplicate lines, etc). Edit the file again if necessary.";

    private final PathGuard guard;
    private final int maxHistoryFiles;
    private final long maxHistoryChars;
    /** In access order: the least recently edited (or undone) file comes first. */
    private final LinkedHashMap<Path, Deque<String>> history = new LinkedHashMap<>(16, 0.75f, true);
    private long historyChars;
    private final EditLinter linter;
    private volatile boolean lintEdits;

    public FileEditor(PathGuard guard) {
        this(guard, MAX_HISTORY_FILES, MAX_HISTORY_CHARS, new EditLinter());
    }

    FileEditor(PathGuard guard, int maxHistoryFiles, long maxHistoryChars) {
        this(guard, maxHistoryFiles, maxHistoryChars, new EditLinter());
    }

    FileEditor(PathGuard guard, int maxHistoryFiles, long maxHistoryChars, EditLinter linter) {
        this.guard = guard;
        this.maxHistoryFiles = maxHistoryFiles;
        this.maxHistoryChars = maxHistoryChars;
        this.linter = linter;
    }

    /** A refusal with the editor's wording; rendered as {@code ERROR:\n<message>}. */
    static final class ToolError extends Exception {
        private static final long serialVersionUID = 1L;

        ToolError(String message) {
            super(message, null, false, false);
        }
    }

    // ------------------------------------------------------------------ entry points

    /**
     * Turns openhands-aci's {@code enable_linting} on or off for str_replace and insert (the
     * runtime's {@code sandbox.enableAutoLint}, given to the sandbox as OpenHands does: the
     * variable {@code ENABLE_AUTO_LINT=true}).
     */
    public void lintEdits(boolean on) {
        this.lintEdits = on;
    }

    public boolean lintsEdits() {
        return lintEdits;
    }

    /**
     * {@code read} with {@code impl_source: oh_aci}: the editor's view in a read observation, after
     * OpenHands' server's own first check (ActionExecutor.read): a binary file is the error
     * {@code ERROR_BINARY_FILE}, before the editor sees it.
     */
    public Observation view(String requested, List<Integer> viewRange, Path workingDir) {
        if (isBinaryFile(requested, workingDir)) {
            return ErrorObservation.of("ERROR_BINARY_FILE");
        }
        try {
            Path path = validate("view", requested, workingDir);
            return new FileReadObservation(view(path, viewRange), requested, "oh_aci");
        } catch (ToolError e) {
            return new FileReadObservation("ERROR:\n" + e.getMessage(), requested, "oh_aci");
        }
    }

    /**
     * Every {@code oh_aci} command, view included, answers an edit observation built as OpenHands'
     * action execution server builds it: {@code old_content} and {@code new_content} are the
     * action's {@code old_str} and {@code new_str}, {@code prev_exist} is never set (false), and
     * {@code diff} is between the file before and after the command ("" for a view or an error).
     */
    public Observation edit(FileEditAction action, Path workingDir) {
        if (action.command() == null) {
            return legacyEdit(action, workingDir);
        }
        String content;
        String diff;
        try {
            Change change = run(action, workingDir);
            content = change.output();
            diff = diff(action.path(), change.before(), change.after());
        } catch (ToolError e) {
            content = "ERROR:\n" + e.getMessage();
            diff = "";
        }
        return new FileEditObservation(content, action.path(), false, action.oldStr(), action.newStr(), "oh_aci",
                diff);
    }

    /** What a command answers and the file's text before and after it ("" where it has none). */
    private record Change(String output, String before, String after) {
    }

    private Change run(FileEditAction action, Path workingDir) throws ToolError {
        String command = action.command();
        Path path = validate(command, action.path(), workingDir);
        switch (command) {
            case "view" -> {
                return new Change(view(path, action.viewRange()), "", "");
            }
            case "create" -> {
                if (action.fileText() == null) {
                    throw missing(command, "file_text");
                }
                write(path, action.fileText());
                remember(path, action.fileText());
                return new Change("File created successfully at: " + path, "", action.fileText());
            }
            case "str_replace" -> {
                if (action.oldStr() == null) {
                    throw missing(command, "old_str");
                }
                if (action.oldStr().equals(action.newStr())) {
                    throw invalid("new_str", action.newStr(), "No replacement was performed. `new_str` and `old_str` "
                            + "must be different.");
                }
                return strReplace(path, action.oldStr(), action.newStr());
            }
            case "insert" -> {
                if (action.insertLine() == null) {
                    throw missing(command, "insert_line");
                }
                if (action.newStr() == null) {
                    throw missing(command, "new_str");
                }
                return insert(path, action.insertLine(), action.newStr());
            }
            case "undo_edit" -> {
                return undo(path);
            }
            default -> throw new ToolError("Unrecognized command " + command + ". The allowed commands for the "
                    + "oh_editor tool are: view, create, str_replace, insert, undo_edit");
        }
    }

    // ------------------------------------------------------------------ validation

    /** openhands-aci's validate_path, in its order, with Dockyard's workspace confinement after the first check. */
    private Path validate(String command, String requested, Path workingDir) throws ToolError {
        if (requested == null || !requested.startsWith("/")) {
            String hint = "The path should be an absolute path, starting with `/`.";
            String shown = requested == null ? null : pathlib(requested);
            if (requested != null) {
                String suggestion = pathlib(workingDir + "/" + requested);
                if (Files.exists(Path.of(suggestion))) {
                    hint += " Maybe you meant " + suggestion + "?";
                }
            }
            throw invalid("path", shown, hint);
        }
        Path path;
        try {
            path = guard.check(requested, workingDir);
        } catch (PathGuard.PathRefusedException e) {
            throw new ToolError(e.getMessage());
        }
        boolean exists = Files.exists(path);
        if (exists && command.equals("create")) {
            throw invalid("path", path, "File already exists at: " + path
                    + ". Cannot overwrite files using command `create`.");
        }
        if (!exists && !command.equals("create")) {
            throw invalid("path", path, "The path " + path + " does not exist. Please provide a valid path.");
        }
        if (!command.equals("view")) {
            if (Files.isDirectory(path)) {
                throw invalid("path", path, "The path " + path
                        + " is a directory and only the `view` command can be used on directories.");
            }
            String suffix = suffix(path);
            if (CONVERTED_BINARY_SUFFIXES.contains(suffix.toLowerCase(Locale.ROOT))) {
                throw invalid("path", path, "The path " + path + " points to a binary file (" + suffix
                        + ") and only the `view` command can be used on supported binary files.");
            }
        }
        return path;
    }

    /** OpenHands' {@code is_binary(action.path)}: a relative path is not found there, so it is not binary. */
    private boolean isBinaryFile(String requested, Path workingDir) {
        if (requested == null || !requested.startsWith("/")) {
            return false;
        }
        try {
            return BinaryOrNot.isBinary(guard.check(requested, workingDir));
        } catch (PathGuard.PathRefusedException e) {
            // the editor's own checks answer this
            return false;
        }
    }

    /** A path as Python's pathlib writes it: no empty or "." parts, no trailing slash ("" is "."); ".." kept. */
    static String pathlib(String path) {
        String joined = Stream.of(path.split("/")).filter(p -> !p.isEmpty() && !p.equals("."))
                .collect(Collectors.joining("/"));
        if (path.startsWith("/")) {
            return "/" + joined;
        }
        return joined.isEmpty() ? "." : joined;
    }

    /** Office documents and audio, which openhands-aci's view converts to Markdown and no other command touches. */
    static final List<String> CONVERTED_BINARY_SUFFIXES = List.of(".docx", ".xlsx", ".pptx", ".pdf", ".mp3", ".wav",
            ".m4a", ".flac");

    /** Python's {@code Path.suffix}, as written ({@code .PDF} stays upper case). */
    private static String suffix(Path path) {
        String name = path.getFileName() == null ? "" : path.getFileName().toString();
        int dot = name.lastIndexOf('.');
        return dot <= 0 || dot == name.length() - 1 ? "" : name.substring(dot);
    }

    /**
     * openhands-aci's validate_file: the size (in MB with one decimal, as Python's format rounds
     * it: half to even on the exact value), then binaryornot's check, which skips the documents
     * the view converts. A file it cannot read passes here and fails when it is read, as there.
     */
    private static void validateFile(Path path, String shown) throws ToolError {
        if (!Files.isRegularFile(path)) {
            return;
        }
        long size;
        try {
            size = Files.size(path);
        } catch (IOException e) {
            throw new ToolError("Ran into " + PythonOsError.of(e, path.toString()) + " while trying to read " + shown);
        }
        if (size > FileActions.MAX_FILE_BYTES) {
            throw new ToolError("File validation failed for " + shown + ": File is too large ("
                    + megabytes(size) + "MB). Maximum allowed size is 10MB.");
        }
        if (CONVERTED_BINARY_SUFFIXES.contains(suffix(path).toLowerCase(Locale.ROOT))) {
            return;
        }
        if (BinaryOrNot.isBinary(path)) {
            throw new ToolError("File validation failed for " + shown
                    + ": File appears to be binary and this file type cannot be read or edited by this tool.");
        }
    }

    /** Python's {@code f'{size / 1024 / 1024:.1f}'}: the double's exact value, rounded half to even. */
    static String megabytes(long size) {
        return new BigDecimal(size / 1024.0 / 1024.0).setScale(1, RoundingMode.HALF_EVEN).toPlainString();
    }

    private static ToolError invalid(String parameter, Object value, String hint) {
        return new ToolError("Invalid `" + parameter + "` parameter: " + value + ". " + hint);
    }

    private static ToolError missing(String command, String parameter) {
        return new ToolError("Parameter `" + parameter + "` is required for command: " + command + ".");
    }

    // ------------------------------------------------------------------ commands

    private String view(Path path, List<Integer> viewRange) throws ToolError {
        if (Files.isDirectory(path)) {
            if (viewRange != null && !viewRange.isEmpty()) {
                throw invalid("view_range", viewRange, "The `view_range` parameter is not allowed when `path` points "
                        + "to a directory.");
            }
            return viewDirectory(path);
        }
        validateFile(path, path.toString());
        if (CONVERTED_BINARY_SUFFIXES.contains(suffix(path).toLowerCase(Locale.ROOT))) {
            throw new ToolError("Error in converting file to Markdown: this sandbox has no converter for "
                    + suffix(path) + " files. Please use Python code to read " + path);
        }
        String content = read(path);
        if (viewRange == null || viewRange.isEmpty()) {
            return makeOutput(content, path.toString(), 1);
        }
        if (viewRange.size() != 2) {
            throw invalid("view_range", viewRange, "It should be a list of two integers.");
        }
        List<String> lines = linesWithEnds(content);
        int n = lines.size();
        int start = viewRange.get(0);
        int end = viewRange.get(1);
        if (start < 1 || start > n) {
            throw invalid("view_range", viewRange, "Its first element `" + start
                    + "` should be within the range of lines of the file: [1, " + n + "].");
        }
        String warning = null;
        if (end == -1) {
            end = n;
        } else if (end > n) {
            warning = "We only show up to " + n + " since there're only " + n + " lines in this file.";
            end = n;
        }
        if (end < start) {
            throw invalid("view_range", viewRange, "Its second element `" + end
                    + "` should be greater than or equal to the first element `" + start + "`.");
        }
        // openhands-aci joins the range's lines without their line ends (splitlines), so no empty last line
        String slice = String.join("", lines.subList(start - 1, end));
        String output = makeOutput(String.join("\n", splitLines(slice)), path.toString(), start);
        return warning == null ? output : "NOTE: " + warning + "\n" + output;
    }

    private static String viewDirectory(Path dir) throws ToolError {
        List<Path> entries;
        int hidden;
        try (Stream<Path> all = Files.walk(dir, 2, FileVisitOption.FOLLOW_LINKS)) {
            entries = all.filter(p -> !isHidden(dir, p)).collect(Collectors.toList());
        } catch (IOException | UncheckedIOException e) {
            throw new ToolError(e.getMessage());
        }
        try (Stream<Path> top = Files.list(dir)) {
            hidden = (int) top.filter(p -> p.getFileName().toString().startsWith(".")).count();
        } catch (IOException e) {
            hidden = 0;
        }
        // as openhands-aci: find's sorted output is clipped first, then each line that is a directory gets its slash
        StringBuilder found = new StringBuilder();
        new TreeSet<>(entries.stream().map(Path::toString).toList()).forEach(p -> found.append(p).append('\n'));
        String clipped = PythonStrings.strip(truncate(found.toString(), DIRECTORY_TRUNCATED_NOTICE));
        List<String> names = new ArrayList<>();
        if (!clipped.isEmpty()) {
            for (String p : clipped.split("\n", -1)) {
                names.add(Files.isDirectory(Path.of(p)) ? p + "/" : p);
            }
        }
        String listing = String.join("\n", names);
        String out = "Here's the files and directories up to 2 levels deep in " + dir + ", excluding hidden items:\n"
                + listing;
        if (hidden > 0) {
            out += "\n\n" + hidden + " hidden files/directories in this directory are excluded. You can use 'ls -la "
                    + dir + "' to see them.";
        }
        return out;
    }

    private static boolean isHidden(Path root, Path p) {
        Path relative = root.relativize(p);
        for (Path part : relative) {
            if (part.toString().startsWith(".")) {
                return true;
            }
        }
        return false;
    }

    private Change strReplace(Path path, String oldStr, String newStr) throws ToolError {
        validateFile(path, path.toString());
        String replacement = newStr == null ? "" : newStr;
        String content = read(path);
        List<Integer> matches = occurrences(content, oldStr);
        if (matches.isEmpty()) {
            // openhands-aci tries once more without the whitespace around both strings
            oldStr = PythonStrings.strip(oldStr);
            replacement = PythonStrings.strip(replacement);
            matches = occurrences(content, oldStr);
            if (matches.isEmpty()) {
                throw new ToolError("No replacement was performed, old_str `" + oldStr + "` did not appear verbatim in "
                        + path + ".");
            }
        }
        if (matches.size() > 1) {
            TreeSet<Integer> lines = new TreeSet<>();
            matches.forEach(at -> lines.add(lineOf(content, at)));
            throw new ToolError("No replacement was performed. Multiple occurrences of old_str `" + oldStr
                    + "` in lines " + lines + ". Please ensure it is unique.");
        }
        int at = matches.get(0);
        String updated = content.substring(0, at) + replacement + content.substring(at + oldStr.length());
        write(path, updated);
        remember(path, content);
        int replacementLine = lineOf(content, at);
        int startLine = Math.max(0, replacementLine - SNIPPET_CONTEXT);
        int endLine = replacementLine + SNIPPET_CONTEXT + count(replacement, '\n');
        StringBuilder out = new StringBuilder("The file ").append(path).append(" has been edited. ")
                .append(makeOutput(range(updated, startLine + 1, endLine), "a snippet of " + path, startLine + 1));
        appendLint(out, path, content, updated);
        return new Change(out.append(REVIEW).toString(), content, updated);
    }

    /** Where re.finditer finds {@code needle}: non-overlapping, and at every position when it is empty. */
    private static List<Integer> occurrences(String content, String needle) {
        List<Integer> found = new ArrayList<>();
        if (needle.isEmpty()) {
            for (int i = 0; i <= content.length(); i++) {
                found.add(i);
            }
            return found;
        }
        for (int i = content.indexOf(needle); i >= 0; i = content.indexOf(needle, i + needle.length())) {
            found.add(i);
        }
        return found;
    }

    private Change insert(Path path, int insertLine, String newStr) throws ToolError {
        validateFile(path, path.toString());
        String content = read(path);
        List<String> lines = linesWithEnds(content);
        int n = lines.size();
        if (insertLine < 0 || insertLine > n) {
            throw invalid("insert_line", insertLine, "It should be within the range of allowed values: [0, " + n + "]");
        }
        String[] inserted = newStr.split("\n", -1);
        // as openhands-aci writes it: the lines before, each new line with its line end, the rest as they were
        StringBuilder updatedText = new StringBuilder();
        lines.subList(0, insertLine).forEach(updatedText::append);
        for (String line : inserted) {
            updatedText.append(line).append('\n');
        }
        lines.subList(insertLine, n).forEach(updatedText::append);
        String updated = updatedText.toString();
        write(path, updated);
        remember(path, content);
        int startLine = Math.max(0, insertLine - SNIPPET_CONTEXT);
        int endLine = Math.min(n + inserted.length, insertLine + SNIPPET_CONTEXT + inserted.length);
        StringBuilder out = new StringBuilder("The file ").append(path).append(" has been edited. ")
                .append(makeOutput(range(updated, startLine + 1, endLine), "a snippet of the edited file",
                        Math.max(1, insertLine - SNIPPET_CONTEXT + 1)));
        appendLint(out, path, content, updated);
        return new Change(out.append(REVIEW_INSERT).toString(), content, updated);
    }

    private void appendLint(StringBuilder out, Path path, String before, String after) {
        if (lintEdits) {
            linter.report(path, before, after).ifPresent(report -> out.append('\n').append(report).append('\n'));
        }
    }

    private Change undo(Path path) throws ToolError {
        validateFile(path, path.toString());
        String current = read(path);
        Deque<String> past = history.get(path);
        if (past == null || past.isEmpty()) {
            throw new ToolError("No edit history found for " + path + ".");
        }
        String previous = past.pop();
        historyChars -= previous.length();
        if (past.isEmpty()) {
            history.remove(path);
        }
        write(path, previous);
        return new Change("Last edit to " + path + " undone successfully. " + makeOutput(previous, path.toString(), 1),
                current, previous);
    }

    /**
     * The legacy edit (content, start, end; 1-based, inclusive; start -1 appends, end -1 is the end
     * of the file). OpenHands drafts it with an LLM; here the lines are replaced as given.
     */
    private Observation legacyEdit(FileEditAction action, Path workingDir) {
        Path path;
        try {
            path = guard.check(action.path(), workingDir);
        } catch (PathGuard.PathRefusedException e) {
            return ErrorObservation.of(e.getMessage());
        }
        String content = action.content() == null ? "" : action.content();
        try {
            if (!Files.exists(path)) {
                String created = content.strip();
                write(path, created);
                remember(path, "");
                return new FileEditObservation(diff(action.path(), "", created), action.path(), false, "", created,
                        "llm_based_edit", diff(action.path(), "", created));
            }
            validateFile(path, action.path());
            String before = read(path);
            List<String> lines = lines(before);
            int total = lines.size();
            int start = action.start();
            int end = action.end();
            List<String> updated;
            if (start == -1) {
                updated = new ArrayList<>(lines);
                updated.addAll(List.of(content.split("\n", -1)));
            } else {
                if (start < 1 || start > Math.max(total, 1) || (end != -1 && start > end)) {
                    return ErrorObservation.of("Invalid range for editing: start=" + start
                            + ", end=" + end + ", total lines=" + total + ". start must be >= 1 and <=" + total
                            + " (total lines of the edited file), start <= end, or start == -1 (append to the end of "
                            + "the file).");
                }
                if (end != -1 && (end < 1 || end > total)) {
                    return ErrorObservation.of("Invalid range for editing: start=" + start
                            + ", end=" + end + ", total lines=" + total + ". end must be >= 1 and <= " + total
                            + " (total lines of the edited file), end >= start, or end == -1 (to edit till the end "
                            + "of the file).");
                }
                int stop = end == -1 ? total : end;
                updated = new ArrayList<>(lines.subList(0, start - 1));
                updated.addAll(List.of(content.split("\n", -1)));
                updated.addAll(lines.subList(Math.min(stop, total), total));
            }
            String after = String.join("\n", updated) + (before.endsWith("\n") ? "\n" : "");
            remember(path, before);
            write(path, after);
            String diff = diff(action.path(), before, after);
            return new FileEditObservation(diff, action.path(), true, before, after, "llm_based_edit", diff);
        } catch (ToolError e) {
            return ErrorObservation.of(e.getMessage());
        }
    }

    // ------------------------------------------------------------------ helpers

    private void remember(Path path, String text) {
        Deque<String> past = history.computeIfAbsent(path, p -> new ArrayDeque<>());
        past.push(text);
        historyChars += text.length();
        while (past.size() > HISTORY_PER_FILE) {
            historyChars -= past.removeLast().length();
        }
        Iterator<Map.Entry<Path, Deque<String>>> leastRecent = history.entrySet().iterator();
        while ((history.size() > maxHistoryFiles || historyChars > maxHistoryChars) && leastRecent.hasNext()) {
            Map.Entry<Path, Deque<String>> oldest = leastRecent.next();
            if (oldest.getKey().equals(path)) {
                continue;
            }
            oldest.getValue().forEach(step -> historyChars -= step.length());
            leastRecent.remove();
        }
        while (historyChars > maxHistoryChars && past.size() > 1) {
            historyChars -= past.removeLast().length();
        }
    }

    private static String read(Path path) throws ToolError {
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(Files.readAllBytes(path))).toString();
        } catch (CharacterCodingException e) {
            throw new ToolError("The editor only supports UTF-8 encoding files, please use bash commands for files "
                    + "with other encoding: " + path);
        } catch (IOException e) {
            throw new ToolError("Ran into " + PythonOsError.of(e, path.toString()) + " while trying to read " + path);
        }
    }

    /** As openhands-aci's open(path, 'w'): a missing parent directory is an error, not created. */
    private static void write(Path path, String text) throws ToolError {
        try {
            Files.writeString(path, text, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new ToolError("Ran into " + PythonOsError.of(e, path.toString()) + " while trying to write to "
                    + path);
        }
    }

    /** The file's lines as cat -n counts them: a final newline does not start another line. */
    static List<String> lines(String text) {
        if (text.isEmpty()) {
            return new ArrayList<>();
        }
        String body = text.endsWith("\n") ? text.substring(0, text.length() - 1) : text;
        return new ArrayList<>(List.of(body.split("\n", -1)));
    }

    /**
     * The file's lines as Python iterates a file: each with its line end, the last one without
     * when the text does not end with one.
     */
    static List<String> linesWithEnds(String text) {
        List<String> lines = new ArrayList<>();
        int from = 0;
        for (int nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', from)) {
            lines.add(text.substring(from, nl + 1));
            from = nl + 1;
        }
        if (from < text.length()) {
            lines.add(text.substring(from));
        }
        return lines;
    }

    /** Lines {@code first}..{@code last} (1-based, inclusive) with their line ends, as openhands-aci's read_file. */
    private static String range(String text, int first, int last) {
        List<String> lines = linesWithEnds(text);
        int from = Math.min(Math.max(first - 1, 0), lines.size());
        int to = Math.min(Math.max(last, from), lines.size());
        return String.join("", lines.subList(from, to));
    }

    /** Python's str.splitlines() for \n-ended text: no empty last element. */
    private static List<String> splitLines(String text) {
        List<String> lines = new ArrayList<>();
        for (String line : linesWithEnds(text)) {
            lines.add(line.endsWith("\n") ? line.substring(0, line.length() - 1) : line);
        }
        return lines;
    }

    /**
     * openhands-aci's _make_output: the text (clipped) numbered line by line as {@code cat -n}
     * would, split at every newline, so a text ending with one shows an empty last line.
     */
    static String makeOutput(String snippet, String description, int firstLine) {
        return numbered(truncate(snippet, FILE_TRUNCATED_NOTICE), description, firstLine);
    }

    static String numbered(String snippet, String description, int firstLine) {
        StringBuilder out = new StringBuilder("Here's the result of running `cat -n` on ").append(description)
                .append(":\n");
        String[] lines = snippet.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            out.append(String.format(Locale.ROOT, "%6d", firstLine + i)).append('\t').append(lines[i]).append('\n');
        }
        return out.toString();
    }

    private static String truncate(String text, String notice) {
        return text.length() <= MAX_RESPONSE_CHARS ? text : text.substring(0, MAX_RESPONSE_CHARS) + notice;
    }

    private static int lineOf(String content, int index) {
        return count(content.substring(0, index), '\n') + 1;
    }

    private static int count(String s, char c) {
        int n = 0;
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) == c) {
                n++;
            }
        }
        return n;
    }

    /** OpenHands' get_diff: difflib's unified diff, no context lines, the path on both headers, lines right-stripped. */
    static String diff(String path, String before, String after) {
        List<String> unified = Difflib.unifiedDiff(List.of(before.split("\n", -1)), List.of(after.split("\n", -1)),
                path, path, 0);
        return unified.stream().map(PythonStrings::rstrip).collect(Collectors.joining("\n"));
    }
}
