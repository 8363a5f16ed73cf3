package dev.dockyard.executor.files;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/** The ASi Unix extra field: what it carries, and that anything malformed carries nothing. */
class UnixModesTest {

    @Test
    void shouldCarryTheModeBehindOtherExtraFields() {
        byte[] asi = UnixModes.extra(UnixModes.REGULAR | 0750);
        // an extended timestamp field ("UT", flags + mtime) first, as zip tools write one
        byte[] extra = ByteBuffer.allocate(9 + asi.length).order(ByteOrder.LITTLE_ENDIAN).putShort((short) 0x5455)
                .putShort((short) 5).put((byte) 1).putInt(1_700_000_000).put(asi).array();

        assertEquals(OptionalInt.of(UnixModes.REGULAR | 0750), UnixModes.mode(extra));
        assertEquals(18, asi.length);
    }

    @Test
    void shouldIgnoreAFieldWhoseChecksumDoesNotMatchOrThatIsCut() {
        byte[] asi = UnixModes.extra(UnixModes.REGULAR | 0644);
        byte[] tampered = asi.clone();
        tampered[8] ^= 0x01;
        byte[] cut = Arrays.copyOf(asi, 10);

        assertEquals(OptionalInt.empty(), UnixModes.mode(tampered));
        assertEquals(OptionalInt.empty(), UnixModes.mode(cut));
        assertEquals(OptionalInt.empty(), UnixModes.mode(null));
    }

    @Test
    void shouldMapPermissionBitsBothWays() {
        assertEquals(0751, UnixModes.bits(PosixFilePermissions.fromString("rwxr-x--x")));
        assertEquals("rw-r-----", PosixFilePermissions.toString(UnixModes.permissions(06640)));
    }
}
