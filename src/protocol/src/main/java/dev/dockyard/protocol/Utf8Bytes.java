package dev.dockyard.protocol;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Scans of UTF-8 text in byte arrays, eight bytes at a time where nothing of interest is in them.
 *
 * <p>Why not a plain loop over the bytes: the executor's JVM runs C1 only (boot time and memory,
 * see {@code jvm.options}), which compiles such a loop as written, at ~0.6 ms per MB here, and has
 * none of the vectorised intrinsics the JDK's own scans ({@code new String}, {@code getBytes},
 * {@code indexOf}) rely on under C2. Eight bytes read as one {@code long} and tested together with
 * the classic "has a byte below n" trick take about a third of that. Where a word holds something
 * of interest, the scan finds it byte by byte.
 */
public final class Utf8Bytes {

    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class,
            ByteOrder.LITTLE_ENDIAN);
    private static final long ONES = 0x0101010101010101L;
    private static final long HIGH_BITS = 0x8080808080808080L;
    private static final long QUOTES = ONES * '"';
    private static final long BACKSLASHES = ONES * '\\';

    private Utf8Bytes() {
    }

    /** Whether {@code b[from, to)} is all ASCII. */
    public static boolean isAscii(byte[] b, int from, int to) {
        return firstNonAscii(b, from, to) == to;
    }

    /** The index of the first byte of {@code b[from, to)} that is not ASCII, or {@code to}. */
    public static int firstNonAscii(byte[] b, int from, int to) {
        int i = from;
        while (i <= to - 8 && ((long) LONGS.get(b, i) & HIGH_BITS) == 0) {
            i += 8;
        }
        while (i < to && b[i] >= 0) {
            i++;
        }
        return i;
    }

    /** The index of the first {@code ascii} byte in {@code b[from, to)}, or {@code to}. */
    public static int indexOf(byte[] b, int from, int to, char ascii) {
        if (ascii >= 0x80) {
            throw new IllegalArgumentException("not an ASCII character: " + (int) ascii);
        }
        long pattern = ONES * ascii;
        int i = from;
        while (i <= to - 8 && below((long) LONGS.get(b, i) ^ pattern, 1) == 0) {
            i += 8;
        }
        while (i < to && b[i] != ascii) {
            i++;
        }
        return i;
    }

    /**
     * Whether {@code b[from, to)} is well-formed UTF-8 as the Unicode standard defines it (its table
     * 3-7: no overlong forms, no surrogates, nothing past U+10FFFF): what Java's and Python's strict
     * decoders accept and what Java's lenient one decodes without a U+FFFD.
     */
    public static boolean isWellFormed(byte[] b, int from, int to) {
        int i = from;
        while (i < to) {
            if (b[i] >= 0) {
                i = firstNonAscii(b, i, to);
                continue;
            }
            int lead = b[i] & 0xFF;
            int more;
            int min = 0x80;
            int max = 0xBF;
            if (lead >= 0xC2 && lead <= 0xDF) {
                more = 1;
            } else if (lead >= 0xE0 && lead <= 0xEF) {
                more = 2;
                min = lead == 0xE0 ? 0xA0 : min;
                max = lead == 0xED ? 0x9F : max;
            } else if (lead >= 0xF0 && lead <= 0xF4) {
                more = 3;
                min = lead == 0xF0 ? 0x90 : min;
                max = lead == 0xF4 ? 0x8F : max;
            } else {
                return false;
            }
            if (to - i <= more) {
                return false;
            }
            int second = b[i + 1] & 0xFF;
            if (second < min || second > max) {
                return false;
            }
            for (int k = 2; k <= more; k++) {
                if ((b[i + k] & 0xC0) != 0x80) {
                    return false;
                }
            }
            i += more + 1;
        }
        return true;
    }

    /**
     * The index of the first byte of {@code b[from, to)} that a JSON string cannot hold as it is (a
     * quote, a backslash, a control character below 0x20), or {@code to}. The bytes of UTF-8's
     * multi-byte sequences are never any of these.
     */
    static int firstJsonSpecial(byte[] b, int from, int to) {
        int i = from;
        for (; i <= to - 8; i += 8) {
            // one expression, not a method: C1 inlines only methods of up to 35 bytes of bytecode
            long word = (long) LONGS.get(b, i);
            if ((below(word ^ QUOTES, 1) | below(word ^ BACKSLASHES, 1) | below(word, 0x20)) != 0) {
                break;
            }
        }
        while (i < to && !jsonSpecial(b[i])) {
            i++;
        }
        return i;
    }

    private static boolean jsonSpecial(byte c) {
        return c == '"' || c == '\\' || (c >= 0 && c < 0x20);
    }

    /**
     * Non-zero exactly when a byte of {@code word} is below {@code n} (at most 0x80): subtracting
     * {@code n} from such a byte borrows and sets its top bit, and {@code ~word} drops the bytes
     * whose top bit was set already. A borrow only carries into the next byte from a byte that was
     * below {@code n}, so it can mark more bytes but never mark a word that has none.
     */
    private static long below(long word, int n) {
        return (word - ONES * n) & ~word & HIGH_BITS;
    }
}
