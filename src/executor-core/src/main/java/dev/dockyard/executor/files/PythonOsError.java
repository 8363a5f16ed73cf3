package dev.dockyard.executor.files;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;

/**
 * An I/O failure written as Python's {@code str(OSError)}, which openhands-aci puts in its texts
 * ("Ran into [Errno 13] Permission denied: '/workspace/a.py' while trying to read ...").
 */
final class PythonOsError {

    private PythonOsError() {
    }

    static String of(IOException e, String filename) {
        if (e instanceof AccessDeniedException) {
            return errno(13, "Permission denied", filename);
        }
        if (e instanceof NoSuchFileException) {
            return errno(2, "No such file or directory", filename);
        }
        if (e instanceof NotDirectoryException) {
            return errno(20, "Not a directory", filename);
        }
        if (e instanceof FileSystemException fs && fs.getReason() != null) {
            return switch (fs.getReason()) {
                case "Is a directory" -> errno(21, "Is a directory", filename);
                case "No space left on device" -> errno(28, "No space left on device", filename);
                case "Read-only file system" -> errno(30, "Read-only file system", filename);
                case "File name too long" -> errno(36, "File name too long", filename);
                default -> fs.getReason();
            };
        }
        return String.valueOf(e.getMessage());
    }

    private static String errno(int number, String text, String filename) {
        return "[Errno " + number + "] " + text + ": " + repr(filename);
    }

    /** Python's repr of a str: single quotes, unless it holds one and no double quote. */
    static String repr(String s) {
        char quote = s.indexOf('\'') >= 0 && s.indexOf('"') < 0 ? '"' : '\'';
        StringBuilder out = new StringBuilder(s.length() + 2).append(quote);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c == quote) {
                        out.append('\\');
                    }
                    out.append(c);
                }
            }
        }
        return out.append(quote).toString();
    }
}
