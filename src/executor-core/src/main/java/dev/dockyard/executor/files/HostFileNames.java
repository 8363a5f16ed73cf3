package dev.dockyard.executor.files;

import java.text.Normalizer;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The names a file action may use when the executor runs on a host rather than in a sandbox (the
 * control plane's {@code cli} runtimes): there no container hides the host's devices and files,
 * so beyond the confinement {@link PathGuard} checks on the real path, a name is refused when it
 * could mean something else to another program than it means to the guard:
 * <ul>
 *   <li>any control character (C0, DEL, C1: NUL ends a name in C, a newline splits a log line);</li>
 *   <li>invisible format characters (bidi overrides, zero-width joiners, the BOM): the name shown
 *       is not the name used;</li>
 *   <li>lookalikes of the separators and dots ({@code ∕ ⁄ ／ ＼ ． ․ ‥}, anything that compatibility
 *       normalisation turns into {@code /}, {@code \} or {@code .}) and the backslash itself;</li>
 *   <li>Windows device names ({@code CON}, {@code NUL}, {@code COM1}, {@code LPT1}..., with any
 *       extension, in any case) and components ending in a dot or a space, which Windows file
 *       systems (a mounted share) silently strip.</li>
 * </ul>
 * {@code /dev} and every other place outside the runtime's directory are the guard's: they are
 * outside, whatever their name.
 */
public final class HostFileNames {

    private static final Set<String> DEVICES = Set.of("CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$", "CLOCK$");
    private static final Pattern NUMBERED_DEVICE = Pattern.compile("(COM|LPT)[0-9\u00b9\u00b2\u00b3]");
    /** Separator lookalikes compatibility normalisation keeps as they are. */
    private static final String SEPARATOR_LOOKALIKES = "\u2215\u2044\u29f8\u2571\u2216\u29f5\u29f9\u2572\ufe68";

    private HostFileNames() {
    }

    /** Why {@code requested} is refused, or empty when its every component is an ordinary name. */
    public static Optional<String> refusal(String requested) {
        for (int i = 0; i < requested.length(); ) {
            int c = requested.codePointAt(i);
            i += Character.charCount(c);
            if (Character.isISOControl(c)) {
                return Optional.of("The path contains control characters (NUL, newline...): refused.");
            }
            if (Character.getType(c) == Character.FORMAT) {
                return Optional.of("The path contains invisible formatting characters: refused.");
            }
            if (c == '\\' || SEPARATOR_LOOKALIKES.indexOf(c) >= 0 || lookalike(c)) {
                return Optional.of("The path contains a character that looks like a separator or a dot: refused.");
            }
        }
        for (String component : requested.split("/")) {
            if (component.isEmpty() || component.equals(".") || component.equals("..")) {
                continue;
            }
            if (component.endsWith(".") || component.endsWith(" ")) {
                return Optional.of("A name ending in a dot or a space is refused: " + component);
            }
            String stem = component.split("\\.", 2)[0].strip().toUpperCase(Locale.ROOT);
            if (DEVICES.contains(stem) || NUMBERED_DEVICE.matcher(stem).matches()) {
                return Optional.of("A device name is refused: " + component);
            }
        }
        return Optional.empty();
    }

    /** A character other than {@code / \ .} that compatibility normalisation turns into one of them. */
    private static boolean lookalike(int c) {
        if (c == '/' || c == '.' || c < 0x80) {
            return false;
        }
        String folded = Normalizer.normalize(new String(Character.toChars(c)), Normalizer.Form.NFKC);
        return folded.indexOf('/') >= 0 || folded.indexOf('\\') >= 0 || folded.indexOf('.') >= 0;
    }
}
