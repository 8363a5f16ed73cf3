package dev.dockyard.security;

import dev.dockyard.protocol.SecurityRisk;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds what a shell text really writes and deletes, so a write is rated by its target and not by
 * any path the line mentions: {@code ln -s /etc/hosts /workspace/x} writes /workspace/x, {@code sed
 * -n 1p /etc/passwd} writes nothing. One pass over the text splits it into simple commands (words
 * with quotes removed, redirect targets apart); each command's targets are its redirects plus the
 * operands its program writes (cp/mv/ln/install destination, tee, sed -i, dd of=, curl -o, tar -C,
 * ...). {@code bash -c '...'}, {@code eval} and here-documents fed to a shell are read as commands
 * too. Each write target is rated by {@link SandboxPaths}; recursive deletes of a critical
 * directory are HIGH. Linear in the text: every character is read at most once per nesting level,
 * and nesting is bounded.
 *
 * <p>Longer than the house's 500 lines on purpose: the splitter and the table of what each
 * program writes are read together, one pass over the text.
 */
final class ShellWrites {

    static final String CRITICAL_DELETE = "recursive delete of the root, home, workspace or a system directory";
    private static final int MAX_DEPTH = 3;
    private static final Set<String> SHELLS = Set.of("sh", "bash", "zsh", "dash", "ksh", "ash");
    private static final Pattern ASSIGNMENT = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*\\+?=.*", Pattern.DOTALL);
    private static final Pattern PYTHON_STRING = Pattern.compile("\"([^\"\\\\\\n]*+(?:\\\\.[^\"\\\\\\n]*+)*+)\"|'([^'\\\\\\n]*+(?:\\\\.[^'\\\\\\n]*+)*+)'");

    private SecurityRisk risk = SecurityRisk.LOW;
    private final Set<String> reasons = new LinkedHashSet<>();
    /** The working directory after a {@code cd} to a known place; null while unknown. */
    private String cwd;

    private ShellWrites() {
    }

    /** The writes and deletes of a shell text. */
    static Assessment rate(String text) {
        ShellWrites scan = new ShellWrites();
        scan.scan(text, 0, false);
        return scan.result();
    }

    /** The same, for an IPython cell: its shell escapes, and every string literal read as a command. */
    static Assessment ratePython(String code) {
        ShellWrites scan = new ShellWrites();
        scan.scan(code, 0, true);
        Matcher m = PYTHON_STRING.matcher(code);
        while (m.find()) {
            String literal = m.group(1) != null ? m.group(1) : m.group(2);
            if (literal.indexOf(' ') >= 0) {
                scan.cwd = null;
                scan.scan(literal, 1, true);
            }
        }
        return scan.result();
    }

    /** Rates a path written from Python ({@code open(path, 'w')}): same zones as a shell write. */
    static Assessment rateWrittenPath(String path) {
        ShellWrites scan = new ShellWrites();
        scan.write(path);
        return scan.result();
    }

    private Assessment result() {
        return reasons.isEmpty() ? Assessment.LOW : new Assessment(risk, new ArrayList<>(reasons));
    }

    private void flag(SecurityRisk r, String reason) {
        risk = Assessment.higher(risk, r);
        reasons.add(reason);
    }

    // ---- lexing -------------------------------------------------------------------------------

    private static final int NONE = 0;
    private static final int OUT = 1;
    private static final int DISCARD = 2;
    private static final int HEREDOC = 3;
    private static final int HEREDOC_STRIP = 4;

    /** One simple command as lexed: its words, its output redirect targets, its here-documents. */
    private static final class Command {
        final List<String> words = new ArrayList<>();
        final List<String> targets = new ArrayList<>();
    }

    private record Heredoc(String delimiter, boolean stripTabs, Command owner) { }

    /**
     * @param lineQuotes a quote never spans lines (a here-document body or Python code: an
     *                   apostrophe in prose must not swallow the rest of the text)
     */
    private void scan(String s, int depth, boolean lineQuotes) {
        int n = s.length();
        Command cmd = new Command();
        StringBuilder word = null;
        int pending = NONE;
        List<Heredoc> heredocs = new ArrayList<>();
        int i = 0;
        while (i < n) {
            char c = s.charAt(i);
            boolean endWord = false;
            boolean endCommand = false;
            int nextPending = -1;
            switch (c) {
                case ' ', '\t', '\r' -> {
                    endWord = true;
                    i++;
                }
                case '\n' -> {
                    endWord = true;
                    endCommand = true;
                    i++;
                }
                case '#' -> {
                    if (word == null) {
                        while (i < n && s.charAt(i) != '\n') {
                            i++;
                        }
                    } else {
                        word.append(c);
                        i++;
                    }
                }
                case '\\' -> {
                    if (i + 1 < n && s.charAt(i + 1) == '\n') {
                        i += 2;
                    } else {
                        word = word == null ? new StringBuilder() : word;
                        if (i + 1 < n) {
                            word.append(s.charAt(i + 1));
                        }
                        i += 2;
                    }
                }
                case '\'' -> {
                    word = word == null ? new StringBuilder() : word;
                    i++;
                    while (i < n && s.charAt(i) != '\'' && !(lineQuotes && s.charAt(i) == '\n')) {
                        word.append(s.charAt(i++));
                    }
                    if (i < n && s.charAt(i) == '\'') {
                        i++;
                    }
                }
                case '"' -> {
                    word = word == null ? new StringBuilder() : word;
                    i++;
                    while (i < n && s.charAt(i) != '"' && !(lineQuotes && s.charAt(i) == '\n')) {
                        char q = s.charAt(i);
                        if (q == '\\' && i + 1 < n && "\"\\$`".indexOf(s.charAt(i + 1)) >= 0) {
                            word.append(s.charAt(i + 1));
                            i += 2;
                        } else {
                            word.append(q);
                            i++;
                        }
                    }
                    if (i < n && s.charAt(i) == '"') {
                        i++;
                    }
                }
                case ';', '|', '(', ')', '`' -> {
                    endWord = true;
                    endCommand = true;
                    i++;
                }
                case '&' -> {
                    endWord = true;
                    if (i + 1 < n && s.charAt(i + 1) == '>') {
                        i += s.startsWith(">>", i + 1) ? 3 : 2;
                        nextPending = OUT;
                    } else {
                        endCommand = true;
                        i++;
                    }
                }
                case '$' -> {
                    if (i + 1 < n && s.charAt(i + 1) == '(') {
                        endWord = true;
                        endCommand = true;
                        i += 2;
                    } else {
                        word = word == null ? new StringBuilder() : word;
                        word.append(c);
                        i++;
                    }
                }
                case '>', '<' -> {
                    if (word != null && isFileDescriptor(word)) {
                        word = null; // "2>" names the descriptor, it is no word of the command
                    }
                    endWord = true;
                    if (c == '>') {
                        i++;
                        if (i < n && (s.charAt(i) == '>' || s.charAt(i) == '|')) {
                            i++;
                        }
                        if (i < n && s.charAt(i) == '(') {
                            endCommand = true; // >(...) is a process substitution
                            i++;
                        } else if (i < n && s.charAt(i) == '&') {
                            i++;
                            if (i < n && (Character.isDigit(s.charAt(i)) || s.charAt(i) == '-')) {
                                while (i < n && (Character.isDigit(s.charAt(i)) || s.charAt(i) == '-')) {
                                    i++;
                                }
                            } else {
                                nextPending = OUT;
                            }
                        } else {
                            nextPending = OUT;
                        }
                    } else if (s.startsWith("<<<", i)) {
                        i += 3;
                        nextPending = DISCARD;
                    } else if (s.startsWith("<<-", i) && !lineQuotes) {
                        i += 3;
                        nextPending = HEREDOC_STRIP;
                    } else if (s.startsWith("<<", i) && !lineQuotes) {
                        i += 2;
                        nextPending = HEREDOC;
                    } else if (s.startsWith("<(", i)) {
                        endCommand = true;
                        i += 2;
                    } else if (s.startsWith("<>", i)) {
                        i += 2;
                        nextPending = OUT;
                    } else if (s.startsWith("<&", i)) {
                        i += 2;
                        while (i < n && (Character.isDigit(s.charAt(i)) || s.charAt(i) == '-')) {
                            i++;
                        }
                    } else {
                        i++;
                        nextPending = DISCARD;
                    }
                }
                default -> {
                    word = word == null ? new StringBuilder() : word;
                    word.append(c);
                    i++;
                }
            }
            if (endWord && word != null) {
                String w = word.toString();
                word = null;
                switch (pending) {
                    case OUT -> cmd.targets.add(w);
                    case HEREDOC, HEREDOC_STRIP -> heredocs.add(new Heredoc(w, pending == HEREDOC_STRIP, cmd));
                    case DISCARD -> { }
                    default -> cmd.words.add(w);
                }
                pending = NONE;
            }
            if (nextPending >= 0) {
                pending = nextPending;
            }
            if (endCommand) {
                analyse(cmd, depth);
                cmd = new Command();
                pending = NONE;
            }
            if (c == '\n' && !heredocs.isEmpty()) {
                i = heredocBodies(s, i, heredocs, depth);
                heredocs.clear();
            }
        }
        if (word != null) {
            String w = word.toString();
            if (pending == OUT) {
                cmd.targets.add(w);
            } else if (pending == NONE) {
                cmd.words.add(w);
            }
        }
        analyse(cmd, depth);
    }

    /** Skips the bodies that start at {@code i}; a body fed to a shell is read as its commands. */
    private int heredocBodies(String s, int i, List<Heredoc> heredocs, int depth) {
        int n = s.length();
        for (Heredoc h : heredocs) {
            int bodyStart = i;
            int bodyEnd = n;
            while (i < n) {
                int eol = s.indexOf('\n', i);
                int lineEnd = eol < 0 ? n : eol;
                int from = i;
                if (h.stripTabs()) {
                    while (from < lineEnd && s.charAt(from) == '\t') {
                        from++;
                    }
                }
                boolean last = s.startsWith(h.delimiter(), from) && from + h.delimiter().length() == lineEnd;
                i = eol < 0 ? n : eol + 1;
                if (last) {
                    bodyEnd = from;
                    break;
                }
            }
            String program = program(h.owner().words);
            if (program != null && SHELLS.contains(program) && depth < MAX_DEPTH) {
                String saved = cwd;
                scan(s.substring(bodyStart, Math.max(bodyStart, bodyEnd)), depth + 1, true);
                cwd = saved;
            }
        }
        return i;
    }

    private static boolean isFileDescriptor(StringBuilder word) {
        for (int k = 0; k < word.length(); k++) {
            if (!Character.isDigit(word.charAt(k))) {
                return false;
            }
        }
        return !word.isEmpty();
    }

    // ---- commands -----------------------------------------------------------------------------

    /** Index of the program word, past assignments and prefixes like sudo, env, nohup, timeout. */
    private static int programIndex(List<String> w) {
        int k = 0;
        while (k < w.size()) {
            String word = w.get(k);
            String name = name(word);
            if (ASSIGNMENT.matcher(word).matches() || word.equals("!") || word.equals("{") || word.equals("}")
                    || word.equals("then") || word.equals("do") || word.equals("else") || word.equals("elif")
                    || word.equals("if") || word.equals("while") || word.equals("until") || word.equals("time")) {
                k++;
            } else if (name.equals("sudo") || name.equals("doas") || name.equals("env") || name.equals("nohup")
                    || name.equals("command") || name.equals("builtin") || name.equals("exec") || name.equals("nice")
                    || name.equals("stdbuf") || name.equals("ionice") || name.equals("timeout") || name.equals("xargs")) {
                k++;
                while (k < w.size() && (w.get(k).startsWith("-") || ASSIGNMENT.matcher(w.get(k)).matches())) {
                    String opt = w.get(k++);
                    if (k < w.size() && (opt.equals("-u") || opt.equals("-g") || opt.equals("-n") || opt.equals("-I")
                            || opt.equals("-P") || opt.equals("-L") || opt.equals("-d") || opt.equals("-s")
                            || opt.equals("-k") || opt.equals("-a"))) {
                        k++;
                    }
                }
                if (name.equals("timeout") && k < w.size() && !w.get(k).isEmpty() && Character.isDigit(w.get(k).charAt(0))) {
                    k++;
                }
            } else {
                return k;
            }
        }
        return -1;
    }

    private static String program(List<String> words) {
        int k = programIndex(words);
        return k < 0 ? null : name(words.get(k));
    }

    /** The program's name: its path's last part, an IPython "!" or a backslash dropped. */
    private static String name(String word) {
        String w = word.startsWith("!") || word.startsWith("\\") ? word.substring(1) : word;
        int slash = w.lastIndexOf('/');
        return slash >= 0 ? w.substring(slash + 1) : w;
    }

    private void analyse(Command cmd, int depth) {
        cmd.targets.forEach(this::write);
        int k = programIndex(cmd.words);
        if (k < 0) {
            return;
        }
        String program = name(cmd.words.get(k));
        List<String> args = cmd.words.subList(k + 1, cmd.words.size());
        switch (program) {
            case "cd" -> cwd = args.isEmpty() ? null : SandboxPaths.resolve(args.get(0), cwd);
            case "cp", "mv", "ln", "install", "rsync" -> destination(program, args);
            case "tee", "touch", "mkdir", "truncate" -> operands(args, Set.of("-s", "-m", "-d", "-t", "-r")).forEach(this::write);
            case "chmod", "chown", "chgrp" -> {
                List<String> ops = operands(args, Set.of());
                boolean reference = args.stream().anyMatch(a -> a.startsWith("--reference"));
                ops.stream().skip(reference ? 0 : 1).forEach(this::write);
            }
            case "sed" -> sedInPlace(args);
            case "dd" -> args.stream().filter(a -> a.startsWith("of=")).forEach(a -> write(a.substring(3)));
            case "curl" -> optionValues(args, Set.of("-o", "--output"), "--output=").forEach(this::write);
            case "wget" -> optionValues(args, Set.of("-O", "--output-document", "-P", "--directory-prefix"),
                    "--output-document=", "--directory-prefix=").forEach(this::write);
            case "tar" -> optionValues(args, Set.of("-C", "--directory"), "--directory=").forEach(this::write);
            case "unzip" -> optionValues(args, Set.of("-d"), "").forEach(this::write);
            case "rm" -> recursiveDelete(args);
            case "eval" -> nested(String.join(" ", args), depth);
            default -> {
                if (SHELLS.contains(program)) {
                    int c = args.indexOf("-c");
                    if (c >= 0 && c + 1 < args.size()) {
                        nested(args.get(c + 1), depth);
                    }
                }
            }
        }
    }

    private void nested(String text, int depth) {
        if (depth < MAX_DEPTH) {
            String saved = cwd;
            scan(text, depth + 1, false);
            cwd = saved;
        }
    }

    private void write(String target) {
        SandboxPaths.Rating rating = SandboxPaths.rateWrite(target, cwd);
        if (rating != null) {
            flag(rating.risk(), rating.reason());
        }
    }

    /** cp/mv/ln/install/rsync write their -t directory, else their last operand (install -d: all). */
    private void destination(String program, List<String> args) {
        List<String> operands = new ArrayList<>();
        String targetDir = null;
        boolean directories = false;
        boolean options = true;
        for (int k = 0; k < args.size(); k++) {
            String a = args.get(k);
            if (options && a.equals("--")) {
                options = false;
            } else if (options && a.startsWith("--target-directory=")) {
                targetDir = a.substring("--target-directory=".length());
            } else if (options && a.startsWith("-") && a.length() > 1) {
                boolean takesValue = a.equals("-t") || a.equals("--target-directory") || a.equals("-S")
                        || (program.equals("install") && (a.equals("-m") || a.equals("-o") || a.equals("-g")))
                        || (program.equals("rsync") && (a.equals("-e") || a.equals("--rsh")));
                if (takesValue && k + 1 < args.size()) {
                    String value = args.get(++k);
                    if (a.equals("-t") || a.equals("--target-directory")) {
                        targetDir = value;
                    }
                }
                directories |= program.equals("install") && (a.equals("-d") || a.equals("--directory"));
            } else {
                operands.add(a);
            }
        }
        if (targetDir != null) {
            write(targetDir);
        } else if (directories) {
            operands.forEach(this::write);
        } else if (operands.size() >= 2) {
            String last = operands.get(operands.size() - 1);
            if (!(program.equals("rsync") && last.matches("[^/]*:.*"))) { // a remote destination is not ours
                write(last);
            }
        }
    }

    private void sedInPlace(List<String> args) {
        boolean inPlace = false;
        boolean scriptGiven = false;
        List<String> operands = new ArrayList<>();
        for (int k = 0; k < args.size(); k++) {
            String a = args.get(k);
            if (a.equals("-e") || a.equals("-f") || a.equals("--expression") || a.equals("--file")) {
                scriptGiven = true;
                k++;
            } else if (a.startsWith("--expression=") || a.startsWith("--file=")) {
                scriptGiven = true;
            } else if (a.startsWith("--in-place") || a.matches("-[a-zA-Z]*i.*") && !a.startsWith("--")) {
                inPlace = true;
                if (a.matches("-[nErsuz]*[ef]")) {
                    scriptGiven = true;
                    k++;
                }
            } else if (a.startsWith("-") && a.length() > 1) {
                if (a.matches("-[nErsuzi]*[ef]")) {
                    scriptGiven = true;
                    k++;
                }
            } else {
                operands.add(a);
            }
        }
        if (inPlace) {
            operands.stream().skip(scriptGiven ? 0 : 1).forEach(this::write);
        }
    }

    private void recursiveDelete(List<String> args) {
        boolean recursive = false;
        boolean options = true;
        List<String> operands = new ArrayList<>();
        for (String a : args) {
            if (options && a.equals("--")) {
                options = false;
            } else if (options && a.startsWith("--")) {
                recursive |= a.equals("--recursive");
            } else if (options && a.startsWith("-") && a.length() > 1) {
                recursive |= a.indexOf('r') >= 0 || a.indexOf('R') >= 0;
            } else {
                operands.add(a);
            }
        }
        if (recursive && operands.stream().anyMatch(o -> SandboxPaths.isCriticalDirectory(o, cwd))) {
            flag(SecurityRisk.HIGH, CRITICAL_DELETE);
        }
    }

    /** Operands (not options, nor the values of {@code valued} options). */
    private static List<String> operands(List<String> args, Set<String> valued) {
        List<String> operands = new ArrayList<>();
        boolean options = true;
        for (int k = 0; k < args.size(); k++) {
            String a = args.get(k);
            if (options && a.equals("--")) {
                options = false;
            } else if (options && a.startsWith("-") && a.length() > 1) {
                if (valued.contains(a)) {
                    k++;
                }
            } else {
                operands.add(a);
            }
        }
        return operands;
    }

    /** Values of the given options: "-o X", "--output X", "--output=X", "-oX". */
    private static List<String> optionValues(List<String> args, Set<String> names, String... inline) {
        List<String> values = new ArrayList<>();
        for (int k = 0; k < args.size(); k++) {
            String a = args.get(k);
            if (names.contains(a) && k + 1 < args.size()) {
                values.add(args.get(++k));
                continue;
            }
            for (String prefix : inline) {
                if (!prefix.isEmpty() && a.startsWith(prefix)) {
                    values.add(a.substring(prefix.length()));
                }
            }
            for (String name : names) {
                if (name.length() == 2 && a.length() > 2 && a.startsWith(name)) {
                    values.add(a.substring(2));
                }
            }
        }
        return values;
    }
}
