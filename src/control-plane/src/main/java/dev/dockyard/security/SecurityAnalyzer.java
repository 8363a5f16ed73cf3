package dev.dockyard.security;

import dev.dockyard.protocol.Action;
import dev.dockyard.protocol.SecurityRisk;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Rates every action before it runs, from a fixed rule table: each rule is a pattern over the
 * action's command (bash), code (IPython: the same shell rules, plus Python's own ways to do the
 * same harm), path (file actions) or URL (browsing), with the risk it implies and a reason. The
 * action's risk is the highest matching rule's, LOW when none matches.
 *
 * <p>The container is the boundary: what stays in the sandbox's own filesystem is at most MEDIUM,
 * HIGH is for what reaches beyond it (devices, kernel, engine, network exfiltration), escalates
 * privilege or destroys the workspace. Writes are rated by their real target, found by a one-pass
 * shell lexer ({@link ShellWrites}); the rest are patterns that catch the shapes agents and prompt
 * injections actually produce, and err towards MEDIUM where a shape is ambiguous. The table is
 * the product's behaviour: change it only with its unit tests and the corpus test (at most 1% of
 * ordinary agent commands held, every dangerous one held).
 */
@ApplicationScoped
public class SecurityAnalyzer {

    /** A pattern; with {@code also}, both patterns on one line. */
    record Rule(SecurityRisk risk, String reason, Pattern pattern, Pattern also) {
        Rule(SecurityRisk risk, String reason, Pattern pattern) {
            this(risk, reason, pattern, null);
        }

        static Rule of(SecurityRisk risk, String reason, String regex) {
            return new Rule(risk, reason, compile(regex));
        }

        static Rule onOneLine(SecurityRisk risk, String reason, String regex, String alsoRegex) {
            return new Rule(risk, reason, compile(regex), compile(alsoRegex));
        }

        private static Pattern compile(String regex) {
            return Pattern.compile(regex, Pattern.CASE_INSENSITIVE | Pattern.DOTALL);
        }

        boolean matches(String text) {
            if (also == null) {
                return pattern.matcher(text).find();
            }
            for (int start = 0; start <= text.length(); ) {
                int eol = text.indexOf('\n', start);
                int end = eol < 0 ? text.length() : eol;
                if (pattern.matcher(text).region(start, end).find() && also.matcher(text).region(start, end).find()) {
                    return true;
                }
                start = end + 1;
            }
            return false;
        }
    }

    /** A top-level system directory or one directly under /usr, /var, /etc, /lib (not /usr/local/lib/x). */
    private static final String SYSTEM_DIRECTORY = "(?:/(?:etc|usr|bin|sbin|lib|lib32|lib64|libx32|boot|var|opt|root|sys|proc|dev|srv|run)"
            + "|/(?:usr|var|etc|lib|lib64)/(?!tmp\\b)[^/\\s;&|'\"]+)/?\\*?(?=[\\s;&|)'\"]|$)";
    /** Where a command starts: the text's start, after a separator or an opening substitution. */
    private static final String COMMAND_START = "(?:^|[;&|(\\n`{]|\\$\\()\\s*(?:sudo\\s+(?:-\\S+\\s+)*)?";
    /** A network client as a command word (not ".ssh/" in a path). */
    private static final String NETWORK_TOOL = "(?<![\\w./-])(?:curl|wget|nc|ncat|netcat|socat|telnet|ftp|scp|sftp|ssh|rsync)\\b|/dev/(?:tcp|udp)/";
    private static final String SECRET_SOURCE = "(?:\\b(?:env|printenv)\\s*(?:\\||>|\\)|$)|\\.ssh\\b|\\.aws/|\\.netrc|\\.git-credentials|"
            + "\\.docker/config\\.json|\\.kube/config|/etc/shadow|id_rsa|id_ed25519|/proc/[^/\\s]+/environ|\\.env\\b|"
            + "\\$\\{?[A-Z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?)\\b)";

    static final List<Rule> SHELL = List.of(
            // destruction
            // (ShellWrites finds the same in every operand of a lexed rm; this also reads quoted code)
            Rule.of(SecurityRisk.HIGH, ShellWrites.CRITICAL_DELETE,
                    "\\brm\\s+(?:-[a-z]*\\s+|--[a-z-]+\\s+)*-[a-z]*r[a-z]*\\s+(?:-[a-z-]+\\s+)*"
                            + "(?:(?:/|~|\\$HOME|\\$\\{HOME\\}|/home/[^/\\s;&|'\"]+|/workspace|/dockyard)/?\\*?(?=[\\s;&|)'\"]|$)|\\.\\*|"
                            + SYSTEM_DIRECTORY + ")"),
            Rule.of(SecurityRisk.HIGH, "recursive delete with --no-preserve-root", "--no-preserve-root"),
            Rule.of(SecurityRisk.MEDIUM, "recursive forced delete", "\\brm\\s+(?:-[a-z]*\\s+)*-(?:[a-z]*r[a-z]*f|[a-z]*f[a-z]*r)[a-z]*\\b|\\brm\\s+-r\\s+-f\\b|\\brm\\s+-f\\s+-r\\b"),
            Rule.of(SecurityRisk.HIGH, "find deleting from the root or a system directory",
                    "\\bfind\\s+(?:/(?=\\s)|" + SYSTEM_DIRECTORY + ")[^\\n]{0,500}(?:-delete|-exec\\s+rm)"),
            Rule.of(SecurityRisk.HIGH, "filesystem or device overwrite",
                    "\\bmkfs(?:\\.\\w+)?\\b|\\bwipefs\\b|\\bshred\\b.*\\s/dev/|\\bdd\\b[^|;&]{0,500}\\bof=/dev/(?!null\\b|zero\\b|stdout\\b|stderr\\b)"
                            + "|>\\s*/dev/(?:sd|nvme|vd|xvd|hd|mmcblk|dm-|mapper/)"),
            Rule.of(SecurityRisk.HIGH, "fork bomb", "(?<!\\w)(\\w++|:)\\s*\\(\\s*\\)\\s*\\{[^}]{0,200}\\1\\s*\\|\\s*\\1\\s*&[^}]{0,200}\\}\\s*;?\\s*\\1"),
            Rule.of(SecurityRisk.HIGH, "kills every process or stops the machine",
                    "\\bkill\\s+(?:-\\w+\\s+)*-1\\b|\\bkillall5\\b|\\bpkill\\s+(?:-\\w+\\s+)*-u\\s|" + COMMAND_START
                            + "(?:(?:/s?bin/)?(?:shutdown|reboot|halt|poweroff)\\b(?!\\s*\\()|init\\s+[06]\\b)"),
            Rule.of(SecurityRisk.HIGH, "recursive permission or owner change of the root or a system directory",
                    "\\bch(?:mod|own|grp)\\s+(?:-\\w+\\s+)*-[a-z]*R[a-z]*\\s+\\S+\\s+(?:/\\*?(?:\\s|$)|" + SYSTEM_DIRECTORY + ")"),
            // remote code
            Rule.of(SecurityRisk.HIGH, "pipes content from the network into a shell or interpreter",
                    "(?:" + NETWORK_TOOL + ")[^|;&]{0,500}\\|\\s*(?:sudo\\s+)?(?:ba|z|da|k)?sh\\b|(?:" + NETWORK_TOOL
                            + ")[^|;&]{0,500}\\|\\s*(?:sudo\\s+)?(?:python[0-9.]*|perl|ruby|node|php)\\b"),
            Rule.of(SecurityRisk.HIGH, "runs a script fetched from the network",
                    "(?:ba|z|da)?sh\\s+(?:-c\\s+)?[\"']?(?:<\\(|\\$\\()\\s*(?:curl|wget)\\b|\\bsource\\s+<\\(\\s*(?:curl|wget)|\\beval\\s+[\"']?\\$\\(\\s*(?:curl|wget)"),
            Rule.of(SecurityRisk.HIGH, "executes decoded or obfuscated content",
                    "\\bbase64\\s+(?:-d|--decode)\\b[^;&]{0,500}\\|\\s*(?:ba|z|da)?sh\\b|\\beval\\s+[\"']?\\$\\(\\s*(?:echo|printf)[^)]{0,500}\\|\\s*base64"),
            // privilege
            Rule.of(SecurityRisk.HIGH, "privilege escalation", "(?:^|[;&|(`\\n]|\\$\\()\\s*(?:sudo|doas|pkexec|su)\\b(?!\\s*-c\\s*$)|\\bsu\\s+(?:-|root)\\b"),
            Rule.of(SecurityRisk.HIGH, "sets a setuid/setgid bit or file capabilities",
                    "\\bchmod\\s+(?:-\\w+\\s+)*(?:[ugoa]*\\+[rwx]*s|[0-7]?[2467][0-7]{3}\\b)|\\bsetcap\\b"),
            // the account files written are ShellWrites' (reading /etc/passwd is no change)
            Rule.of(SecurityRisk.HIGH, SandboxPaths.ACCOUNTS, COMMAND_START
                    + "(?:(?:useradd|usermod|userdel|groupadd|groupmod|passwd|visudo|vipw|chpasswd|chsh)\\b(?![./-])|crontab\\s+(?!-l\\b))"),
            // beyond the container: the host's kernel, devices and engine
            Rule.of(SecurityRisk.HIGH, "mounts a filesystem or enters another namespace",
                    COMMAND_START + "(?:mount\\s+(?!-l\\b)[^\\s;&|]|umount\\b|nsenter\\b)"),
            Rule.of(SecurityRisk.HIGH, "loads kernel modules or changes kernel parameters",
                    COMMAND_START + "(?:insmod|rmmod|modprobe|kexec)\\b|\\bsysctl\\s+(?:-\\w+\\s+)*(?:-w\\b|[\\w.]+=)"),
            Rule.of(SecurityRisk.HIGH, "talks to a container engine's socket", "(?:docker|containerd|podman|crio)\\.sock\\b|\\bDOCKER_HOST="),
            Rule.of(SecurityRisk.HIGH, "reverse shell",
                    "(?:ba|z|da|k)?sh\\s+-i\\b[^\\n]{0,200}/dev/(?:tcp|udp)/|/dev/(?:tcp|udp)/[^\\n]{0,200}0>&1"
                            + "|\\b(?:nc|ncat|netcat)\\b[^;&|\\n]{0,200}\\s-[a-z]*[ec]\\s+\\S*sh\\b|\\bsocat\\b[^\\n]{0,200}\\b(?:exec|system):"
                            + "|\\bsocket\\b[^\\n]{0,400}(?:\\bsubprocess\\b|pty\\.spawn|os\\.dup2)"),
            // exfiltration
            // both on one line, in either order: checked line by line (a regex "A.*B|B.*A" is quadratic)
            Rule.onOneLine(SecurityRisk.HIGH, "sends credentials or environment over the network", SECRET_SOURCE, NETWORK_TOOL),
            Rule.of(SecurityRisk.MEDIUM, "reads private keys or credential stores",
                    "\\b(?:cat|less|more|head|tail|cp|base64|xxd|strings)\\b[^|;&]{0,500}(?:\\.ssh/id_|\\.aws/credentials|\\.netrc|"
                            + "\\.git-credentials|/etc/shadow|/proc/[^/\\s]+/environ|\\.docker/config\\.json)"),
            // everything else that deserves a second look
            Rule.of(SecurityRisk.MEDIUM, "rewrites or discards version control history",
                    "\\bgit\\s+push\\s+(?:\\S+\\s+)*(?:-f\\b|--force)|\\bgit\\s+reset\\s+--hard\\b|\\bgit\\s+clean\\s+-[a-z]*f"),
            Rule.of(SecurityRisk.MEDIUM, "opens a network listener", "\\b(?:nc|ncat|netcat|socat)\\b[^;&|]{0,500}\\s-[a-z]*l|\\bpython[0-9.]*\\s+-m\\s+http\\.server\\b"),
            Rule.of(SecurityRisk.MEDIUM, "remote shell or copy", "(?:^|[;&|(]|\\s)(?:ssh|scp|sftp|rsync\\s+\\S*\\S+:)\\s+\\S"),
            Rule.of(SecurityRisk.MEDIUM, "world-writable permissions", "\\bchmod\\s+(?:-\\w+\\s+)*(?:0?777|a\\+w|o\\+w)\\b"),
            Rule.of(SecurityRisk.MEDIUM, "hides the shell history", "\\bhistory\\s+-c\\b|\\bunset\\s+HISTFILE\\b|HISTFILE=/dev/null"),
            Rule.of(SecurityRisk.MEDIUM, "kills processes by name", "\\b(?:pkill|killall)\\b"));

    /** Python's own spellings of the same harm, for run_ipython. */
    static final List<Rule> PYTHON = List.of(
            Rule.of(SecurityRisk.HIGH, "recursive delete of the root, home or a system directory from Python",
                    "shutil\\.rmtree\\(\\s*(?:['\"](?:(?:/|~|/workspace|/home/[^/'\"]+)/?['\"]|" + SYSTEM_DIRECTORY
                            + ")|os\\.path\\.expanduser\\(['\"]~['\"]\\))"),
            Rule.of(SecurityRisk.HIGH, "runs network content as code from Python",
                    "exec\\(\\s*(?:requests\\.get|urllib\\.request\\.urlopen|urlopen)\\("),
            Rule.of(SecurityRisk.HIGH, "sends the environment over the network from Python",
                    "(?:os\\.environ|os\\.getenv)[^\\n]{0,500}(?:requests\\.(?:post|get|put)|urlopen|socket)|(?:requests\\.(?:post|put)|urlopen)[^\\n]{0,500}os\\.environ"),
            Rule.of(SecurityRisk.HIGH, "fork bomb from Python", "while\\s+True\\s*:\\s*(?:\\n\\s*)?os\\.fork\\(\\)"));

    /** Paths read (written paths are rated by {@link SandboxPaths}). */
    static final List<Rule> READ_PATHS = List.of(
            new Rule(SecurityRisk.MEDIUM, SandboxPaths.KEYS, SandboxPaths.KEY_FILES),
            new Rule(SecurityRisk.MEDIUM, SandboxPaths.START_UP, SandboxPaths.START_UP_FILES));

    static final List<Rule> URLS = List.of(
            Rule.of(SecurityRisk.HIGH, "cloud metadata or link-local address", "^\\w+://(?:169\\.254\\.|\\[?fe80:|metadata\\.google\\.internal)"),
            Rule.of(SecurityRisk.MEDIUM, "local files through the browser", "^file:"),
            Rule.of(SecurityRisk.MEDIUM, "private network address", "^\\w+://(?:10\\.|192\\.168\\.|172\\.(?:1[6-9]|2\\d|3[01])\\.)"));

    /**
     * Rates an action (PROTOCOL.md; {@code action} as parsed, {@code dict} as sent): the rules'
     * verdict, raised to the action's own {@code security_risk} when that is higher.
     */
    public Assessment assess(Action action, JsonObject dict) {
        JsonObject args = dict.get("args") instanceof JsonObject a ? a : JsonValue.EMPTY_JSON_OBJECT;
        Assessment rated = switch (action.type()) {
            case RUN -> rateShell(text(args, "command"));
            case RUN_IPYTHON -> {
                // the init code runs in the same kernel: it is rated with the cell
                String code = text(args, "code") + "\n" + text(args, "kernel_init_code");
                // shell escapes (!cmd, %%bash) and subprocess strings go through the shell rules too
                yield worst(worst(rate(PYTHON, code), rate(SHELL, code)), pythonWrites(code));
            }
            case WRITE, EDIT -> worst(writtenPath(text(args, "path")), writeContent(args));
            // reading a system file is not writing one: only the key-file and start-up-file rules apply
            case READ -> rate(READ_PATHS, text(args, "path"));
            case BROWSE -> rate(URLS, text(args, "url").toLowerCase(Locale.ROOT));
            case BROWSE_INTERACTIVE -> rate(URLS, gotoUrls(text(args, "browser_actions")));
        };
        SecurityRisk declared = action.securityRisk();
        if (declared.wireValue() > rated.risk().wireValue()) {
            List<String> reasons = new ArrayList<>(rated.reasons());
            reasons.add("declared " + declared + " by the agent");
            return new Assessment(declared, reasons);
        }
        return rated;
    }

    private static Assessment writeContent(JsonObject args) {
        // a script written to disk is rated like the commands it holds, so writing then running it gains nothing
        String path = text(args, "path");
        if (path.endsWith(".sh") || path.endsWith(".bash")) {
            return rateShell(text(args, "content") + "\n" + text(args, "file_text") + "\n" + text(args, "new_str"));
        }
        return Assessment.LOW;
    }

    /** A command: the rule table, and what it really writes or deletes. */
    static Assessment rateShell(String command) {
        Assessment rules = rate(SHELL, command);
        return command.length() > MAX_RATED_CHARS ? rules : worst(rules, ShellWrites.rate(command));
    }

    private static final Pattern PYTHON_OPEN_FOR_WRITE = Pattern.compile(
            "\\bopen\\(\\s*['\"]([^'\"\\n]{1,4096})['\"]\\s*,\\s*(?:mode\\s*=\\s*)?['\"][rbt]*[wax+]");

    /** The shell's writes in a cell (escapes, strings run as commands) and the files it opens for writing. */
    private static Assessment pythonWrites(String code) {
        if (code.length() > MAX_RATED_CHARS) {
            return Assessment.LOW;
        }
        Assessment rated = ShellWrites.ratePython(code);
        Matcher m = PYTHON_OPEN_FOR_WRITE.matcher(code);
        while (m.find()) {
            rated = worst(rated, writtenPath(m.group(1)));
        }
        return rated;
    }

    private static Assessment writtenPath(String path) {
        return ShellWrites.rateWrittenPath(path);
    }

    private static String gotoUrls(String script) {
        StringBuilder urls = new StringBuilder();
        Matcher m = Pattern.compile("goto\\s*\\(\\s*['\"]([^'\"]+)['\"]").matcher(script);
        while (m.find()) {
            urls.append(m.group(1).toLowerCase(Locale.ROOT)).append('\n');
        }
        return urls.toString();
    }

    /** Longer texts are not matched (the cost would grow with them): they are rated MEDIUM unread. */
    static final int MAX_RATED_CHARS = 64 * 1024;

    static Assessment rate(List<Rule> rules, String text) {
        if (text.isBlank()) {
            return Assessment.LOW;
        }
        if (text.length() > MAX_RATED_CHARS) {
            return new Assessment(SecurityRisk.MEDIUM, List.of("too long to rate (over " + MAX_RATED_CHARS
                    + " characters)"));
        }
        SecurityRisk risk = SecurityRisk.LOW;
        List<String> reasons = new ArrayList<>();
        for (Rule rule : rules) {
            for (String line : rules == URLS ? text.split("\n") : new String[] {text}) {
                if (rule.matches(line)) {
                    risk = Assessment.higher(risk, rule.risk());
                    reasons.add(rule.reason());
                    break;
                }
            }
        }
        return reasons.isEmpty() ? Assessment.LOW : new Assessment(risk, reasons);
    }

    private static Assessment worst(Assessment a, Assessment b) {
        if (b.reasons().isEmpty()) {
            return a;
        }
        if (a.reasons().isEmpty()) {
            return b;
        }
        List<String> reasons = new ArrayList<>(a.reasons());
        b.reasons().stream().filter(r -> !reasons.contains(r)).forEach(reasons::add);
        return new Assessment(Assessment.higher(a.risk(), b.risk()), reasons);
    }

    private static String text(JsonObject args, String key) {
        return args.get(key) instanceof JsonString s ? s.getString() : "";
    }
}
