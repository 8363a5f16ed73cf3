package dev.dockyard.executor.files;

import com.github.difflib.DiffUtils;
import com.github.difflib.UnifiedDiffUtils;
import dev.dockyard.protocol.ErrorObservation;
import dev.dockyard.protocol.FileEditAction;
import dev.dockyard.protocol.FileEditObservation;
import dev.dockyard.protocol.FileReadObservation;
import dev.dockyard.protocol.Observation;
import java.io.IOException;
import java.io.UncheckedIOException;
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
 * The OpenHands file editor ({@code oh_aci}): view, create, str_replace, insert, undo_edit, with
 * the texts agents were trained on. A failed command answers {@code ERROR:\n<why>} in an edit
 * observation, as OpenHands does; every change carries a unified diff (no context lines, the
 * path on both header lines) and can be undone, {@value #HISTORY_PER_FILE} steps back per file.
 *
 * <p>The undo history lives in the executor's bounded heap, so it is bounded too: at most
 * {@value #MAX_HISTORY_FILES} files and {@value #MAX_HISTORY_CHARS} characters in all. Beyond
 * either, the least recently edited file's history goes first; only when the file being edited
 * alone is over the budget does it lose its own oldest steps (its newest step is always kept).
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

    public FileEditor(PathGuard guard) {
        this(guard, MAX_HISTORY_FILES, MAX_HISTORY_CHARS);
    }

    FileEditor(PathGuard guard, int maxHistoryFiles, long maxHistoryChars) {
        this.guard = guard;
        this.maxHistoryFiles = maxHistoryFiles;
        this.maxHistoryChars = maxHistoryChars;
    }

    /** A refusal with the editor's wording; rendered as {@code ERROR:\n<message>}. */
    static final class ToolError extends Exception {
        private static final long serialVersionUID = 1L;

        ToolError(String message) {
            super(message, null, false, false);
        }
    }

    // ------------------------------------------------------------------ entry points

    /** {@code read} with {@code impl_source: oh_aci}, and {@code edit} with {@code command: view}. */
    public Observation view(String requested, List<Integer> viewRange, Path workingDir) {
        try {
            Path path = validate("view", requested, workingDir);
            return new FileReadObservation(view(path, viewRange), requested, "oh_aci");
        } catch (ToolError e) {
            return new FileReadObservation("ERROR:\n" + e.getMessage(), requested, "oh_aci");
        }
    }

    public Observation edit(FileEditAction action, Path workingDir) {
        if (action.command() == null) {
            return legacyEdit(action, workingDir);
        }
        if (action.command().equals("view")) {
            return view(action.path(), action.viewRange(), workingDir);
        }
        boolean existed = false;
        try {
            Path path = validate(action.command(), action.path(), workingDir);
            existed = Files.exists(path);
            String before = existed ? read(path) : "";
            String output = switch (action.command()) {
                case "create" -> create(path, action.fileText());
                case "str_replace" -> strReplace(path, before, action.oldStr(), action.newStr());
                case "insert" -> insert(path, before, action.insertLine(), action.newStr());
                case "undo_edit" -> undo(path);
                default -> throw new ToolError("Unrecognized command " + action.command() + ". The allowed commands "
                        + "for the oh_editor tool are: view, create, str_replace, insert, undo_edit");
            };
            String after = read(path);
            return new FileEditObservation(output, action.path(), existed, action.oldStr(), action.newStr(), "oh_aci",
                    diff(action.path(), before, after));
        } catch (ToolError e) {
            return new FileEditObservation("ERROR:\n" + e.getMessage(), action.path(), existed, action.oldStr(),
                    action.newStr(), "oh_aci", "");
        }
    }

    // ------------------------------------------------------------------ validation

    private Path validate(String command, String requested, Path workingDir) throws ToolError {
        if (requested == null || !requested.startsWith("/")) {
            String hint = "The path should be an absolute path, starting with `/`.";
            if (requested != null && !requested.isBlank()) {
                Path suggestion = workingDir.resolve(requested).normalize();
                if (Files.exists(suggestion)) {
                    hint += " Maybe you meant " + suggestion + "?";
                }
            }
            throw invalid("path", requested, hint);
        }
        Path path;
        try {
            path = guard.check(requested, workingDir);
        } catch (PathGuard.PathRefusedException e) {
            throw new ToolError(e.getMessage());
        }
        boolean exists = Files.exists(path);
        if (!exists && !command.equals("create")) {
            throw invalid("path", requested, "The path " + requested + " does not exist. Please provide a valid path.");
        }
        if (exists && command.equals("create")) {
            throw invalid("path", requested, "File already exists at: " + requested
                    + ". Cannot overwrite files using command `create`.");
        }
        if (Files.isDirectory(path) && !command.equals("view")) {
            throw invalid("path", requested, "The path " + requested
                    + " is a directory and only the `view` command can be used on directories.");
        }
        if (exists && Files.isRegularFile(path)) {
            validateFile(path, requested);
        }
        return path;
    }

    private static void validateFile(Path path, String shown) throws ToolError {
        try {
            long size = Files.size(path);
            if (size > FileActions.MAX_FILE_BYTES) {
                throw new ToolError("File validation failed for " + shown + ": File is too large ("
                        + String.format(Locale.ROOT, "%.1f", size / 1024.0 / 1024.0)
                        + "MB). Maximum allowed size is 10MB.");
            }
            byte[] head = new byte[(int) Math.min(size, 8192)];
            try (var in = Files.newInputStream(path)) {
                in.readNBytes(head, 0, head.length);
            }
            if (FileActions.looksBinary(head)) {
                throw new ToolError("File validation failed for " + shown
                        + ": File appears to be binary and this file type cannot be read or edited by this tool.");
            }
        } catch (IOException e) {
            throw new ToolError("Ran into " + e + " while trying to read " + shown);
        }
    }

    private static ToolError invalid(String parameter, Object value, String hint) {
        return new ToolError("Invalid `" + parameter + "` parameter: " + value + ". " + hint);
    }

    // ------------------------------------------------------------------ commands

    private String view(Path path, List<Integer> viewRange) throws ToolError {
        if (Files.isDirectory(path)) {
            if (viewRange != null) {
                throw invalid("view_range", viewRange, "The `view_range` parameter is not allowed when `path` points "
                        + "to a directory.");
            }
            return viewDirectory(path);
        }
        List<String> lines = lines(read(path));
        if (viewRange == null) {
            return numbered(truncate(String.join("\n", lines), FILE_TRUNCATED_NOTICE), path.toString(), 1);
        }
        if (viewRange.size() != 2) {
            throw invalid("view_range", viewRange, "It should be a list of two integers.");
        }
        int n = lines.size();
        int start = viewRange.get(0);
        int end = viewRange.get(1);
        if (start < 1 || start > n) {
            throw invalid("view_range", viewRange, "Its first element `" + start
                    + "` should be within the range of lines of the file: [1, " + n + "].");
        }
        String note = "";
        if (end == -1) {
            end = n;
        } else if (end > n) {
            note = "\nNOTE: We only show up to " + n + " since there's only " + n + " lines in this file\n";
            end = n;
        }
        if (end < start) {
            throw invalid("view_range", viewRange, "Its second element `" + viewRange.get(1)
                    + "` should be greater than or equal to the first element `" + start + "`.");
        }
        String slice = String.join("\n", lines.subList(start - 1, end));
        return numbered(truncate(slice, FILE_TRUNCATED_NOTICE), path.toString(), start) + note;
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
        List<String> names = new ArrayList<>();
        new TreeSet<>(entries.stream().map(Path::toString).toList()).forEach(p ->
                names.add(Files.isDirectory(Path.of(p)) ? p + "/" : p));
        String listing = truncate(String.join("\n", names), DIRECTORY_TRUNCATED_NOTICE);
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

    private String create(Path path, String fileText) throws ToolError {
        if (fileText == null) {
            throw new ToolError("Parameter `file_text` is required for command: create.");
        }
        write(path, fileText);
        remember(path, fileText);
        return "File created successfully at: " + path;
    }

    private String strReplace(Path path, String content, String oldStr, String newStr) throws ToolError {
        if (oldStr == null) {
            throw new ToolError("Parameter `old_str` is required for command: str_replace.");
        }
        String replacement = newStr == null ? "" : newStr;
        if (replacement.equals(oldStr)) {
            throw invalid("new_str", replacement, "No replacement was performed. `new_str` and `old_str` must be "
                    + "different.");
        }
        List<Integer> matchLines = new ArrayList<>();
        List<Integer> matchStarts = new ArrayList<>();
        Matcher m = Pattern.compile(Pattern.quote(oldStr)).matcher(content);
        while (m.find()) {
            matchStarts.add(m.start());
            matchLines.add(lineOf(content, m.start()));
            if (oldStr.isEmpty() && m.end() >= content.length()) {
                break;
            }
        }
        if (matchStarts.isEmpty()) {
            throw new ToolError("No replacement was performed, old_str `" + oldStr + "` did not appear verbatim in "
                    + path + ".");
        }
        if (matchStarts.size() > 1) {
            throw new ToolError("No replacement was performed. Multiple occurrences of old_str `" + oldStr
                    + "` in lines " + new TreeSet<>(matchLines) + ". Please ensure it is unique.");
        }
        int at = matchStarts.get(0);
        String updated = content.substring(0, at) + replacement + content.substring(at + oldStr.length());
        remember(path, content);
        write(path, updated);
        int replacementLine = matchLines.get(0);
        int startLine = Math.max(0, replacementLine - SNIPPET_CONTEXT);
        int endLine = replacementLine + SNIPPET_CONTEXT + count(replacement, '\n');
        List<String> lines = lines(updated);
        String snippet = String.join("\n", lines.subList(Math.min(startLine, lines.size()), Math.min(endLine, lines.size())));
        return "The file " + path + " has been edited. " + numbered(snippet, "a snippet of " + path, startLine + 1)
                + REVIEW;
    }

    private String insert(Path path, String content, Integer insertLine, String newStr) throws ToolError {
        if (insertLine == null) {
            throw new ToolError("Parameter `insert_line` is required for command: insert.");
        }
        if (newStr == null) {
            throw new ToolError("Parameter `new_str` is required for command: insert.");
        }
        List<String> lines = lines(content);
        int n = lines.size();
        if (insertLine < 0 || insertLine > n) {
            throw invalid("insert_line", insertLine, "It should be within the range of allowed values: [0, " + n + "]");
        }
        List<String> inserted = List.of(newStr.split("\n", -1));
        List<String> updatedLines = new ArrayList<>(lines.subList(0, insertLine));
        updatedLines.addAll(inserted);
        updatedLines.addAll(lines.subList(insertLine, n));
        boolean trailingNewline = content.isEmpty() || content.endsWith("\n");
        String updated = String.join("\n", updatedLines) + (trailingNewline ? "\n" : "");
        remember(path, content);
        write(path, updated);
        int from = Math.max(0, insertLine - SNIPPET_CONTEXT);
        int to = Math.min(n + inserted.size(), insertLine + SNIPPET_CONTEXT + inserted.size());
        String snippet = String.join("\n", updatedLines.subList(from, to));
        return "The file " + path + " has been edited. " + numbered(snippet, "a snippet of the edited file", from + 1)
                + REVIEW_INSERT;
    }

    private String undo(Path path) throws ToolError {
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
        return "Last edit to " + path + " undone successfully. "
                + numbered(truncate(String.join("\n", lines(previous)), FILE_TRUNCATED_NOTICE), path.toString(), 1);
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
            throw new ToolError("Ran into " + e + " while trying to read " + path);
        }
    }

    private static void write(Path path, String text) throws ToolError {
        try {
            if (path.getParent() != null) {
                Files.createDirectories(path.getParent());
            }
            Files.writeString(path, text, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new ToolError("Ran into " + e + " while trying to write to " + path);
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

    /** OpenHands' get_diff: unified, no context lines, the path on both headers, trailing spaces stripped. */
    static String diff(String path, String before, String after) {
        List<String> a = List.of(before.split("\n", -1));
        List<String> b = List.of(after.split("\n", -1));
        List<String> unified = UnifiedDiffUtils.generateUnifiedDiff(path, path, a, DiffUtils.diff(a, b), 0);
        return unified.stream().map(FileEditor::difflibHunkHeader).map(String::stripTrailing)
                .collect(Collectors.joining("\n"));
    }

    private static final Pattern HUNK = Pattern.compile("^@@ -(\\d+),(\\d+) \\+(\\d+),(\\d+) @@$");

    /** Python's difflib writes "-3" for a one-line range and "-2,0" (the line before) for an empty one. */
    private static String difflibHunkHeader(String line) {
        Matcher m = HUNK.matcher(line);
        if (!m.matches()) {
            return line;
        }
        return "@@ -" + range(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2))) + " +"
                + range(Integer.parseInt(m.group(3)), Integer.parseInt(m.group(4))) + " @@";
    }

    private static String range(int start, int length) {
        if (length == 1) {
            return String.valueOf(start);
        }
        return (length == 0 ? start - 1 : start) + "," + length;
    }
}
