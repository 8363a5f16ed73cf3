package dev.dockyard.executor.files;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.attribute.PosixFilePermission;
import java.util.EnumSet;
import java.util.OptionalInt;
import java.util.Set;
import java.util.zip.CRC32;

/**
 * A file's Unix mode carried in a zip entry as an "ASi Unix" extra field (tag {@code 0x756e}, Info-ZIP's
 * appnote: CRC-32 of the rest, mode, size or device, uid, gid, link name). Zip tools keep the mode
 * in the entry's external attributes, which {@code java.util.zip} can neither write nor read while
 * streaming; an extra field it carries both ways, and readers that do not know the tag skip it
 * (Python's zipfile, OpenHands' clients). Only the mode is carried here: uid and gid are written as
 * 0 and ignored when read (a file belongs to whoever unpacks it), and no link name (links are never
 * entries).
 */
public final class UnixModes {

    static final int ASI_TAG = 0x756e;
    /** The file type bits of a regular file and a directory (st_mode). */
    public static final int REGULAR = 0100000;
    public static final int DIRECTORY = 0040000;
    /** The permission bits an unpacking applies: never setuid, setgid or sticky. */
    public static final int PERMISSIONS = 0777;
    private static final int DATA_LENGTH = 14;

    private UnixModes() {
    }

    /** The extra field carrying {@code mode} (type and permission bits). */
    public static byte[] extra(int mode) {
        ByteBuffer data = ByteBuffer.allocate(DATA_LENGTH - 4).order(ByteOrder.LITTLE_ENDIAN);
        data.putShort((short) mode).putInt(0).putShort((short) 0).putShort((short) 0);
        CRC32 crc = new CRC32();
        crc.update(data.array());
        ByteBuffer field = ByteBuffer.allocate(4 + DATA_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
        field.putShort((short) ASI_TAG).putShort((short) DATA_LENGTH).putInt((int) crc.getValue()).put(data.array());
        return field.array();
    }

    /**
     * The mode an entry's extra data carries (type and permission bits), if it has a well-formed
     * ASi field whose CRC matches; anything else is as if there were none.
     */
    public static OptionalInt mode(byte[] extra) {
        if (extra == null) {
            return OptionalInt.empty();
        }
        ByteBuffer fields = ByteBuffer.wrap(extra).order(ByteOrder.LITTLE_ENDIAN);
        while (fields.remaining() >= 4) {
            int tag = Short.toUnsignedInt(fields.getShort());
            int size = Short.toUnsignedInt(fields.getShort());
            if (size > fields.remaining()) {
                return OptionalInt.empty();
            }
            if (tag == ASI_TAG && size >= DATA_LENGTH) {
                int crc = fields.getInt();
                byte[] rest = new byte[size - 4];
                fields.get(rest);
                CRC32 check = new CRC32();
                check.update(rest);
                if ((int) check.getValue() != crc) {
                    return OptionalInt.empty();
                }
                return OptionalInt.of(Short.toUnsignedInt(ByteBuffer.wrap(rest).order(ByteOrder.LITTLE_ENDIAN).getShort()));
            }
            fields.position(fields.position() + size);
        }
        return OptionalInt.empty();
    }

    /** The permission bits of {@code permissions}. */
    public static int bits(Set<PosixFilePermission> permissions) {
        int bits = 0;
        for (PosixFilePermission permission : permissions) {
            bits |= 1 << (8 - permission.ordinal());
        }
        return bits;
    }

    /** The permissions of {@code mode}'s permission bits (setuid, setgid and sticky left out). */
    public static Set<PosixFilePermission> permissions(int mode) {
        Set<PosixFilePermission> permissions = EnumSet.noneOf(PosixFilePermission.class);
        for (PosixFilePermission permission : PosixFilePermission.values()) {
            if ((mode & (1 << (8 - permission.ordinal()))) != 0) {
                permissions.add(permission);
            }
        }
        return permissions;
    }
}
