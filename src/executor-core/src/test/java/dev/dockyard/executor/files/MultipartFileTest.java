package dev.dockyard.executor.files;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

class MultipartFileTest {

    private static byte[] body(String boundary, String name, String filename, byte[] content, boolean otherPartFirst) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        if (otherPartFirst) {
            out.writeBytes(("--" + boundary + "\r\nContent-Disposition: form-data; name=\"note\"\r\n\r\nhello\r\n")
                    .getBytes(StandardCharsets.UTF_8));
        }
        out.writeBytes(("--" + boundary + "\r\nContent-Disposition: form-data; name=\"" + name + "\"; filename=\""
                + filename + "\"\r\nContent-Type: application/octet-stream\r\n\r\n").getBytes(StandardCharsets.UTF_8));
        out.writeBytes(content);
        out.writeBytes(("\r\n--" + boundary + "--\r\n").getBytes(StandardCharsets.UTF_8));
        return out.toByteArray();
    }

    @Test
    void shouldStreamTheNamedPartExactly() throws Exception {
        byte[] content = new byte[300_000];
        new Random(7).nextBytes(content);
        byte[] body = body("xyz", "file", "data.bin", content, true);
        MultipartFile file = MultipartFile.find("multipart/form-data; boundary=xyz", new ByteArrayInputStream(body), "file");
        assertEquals("data.bin", file.filename());
        assertArrayEquals(content, file.content().readAllBytes());
    }

    @Test
    void shouldRefuseAPartWhoseBodyEndsBeforeItsClosingBoundary() throws Exception {
        byte[] content = new byte[100_000];
        new Random(8).nextBytes(content);
        byte[] whole = body("xyz", "file", "data.bin", content, false);
        // the client went away half-way through the file
        byte[] cut = Arrays.copyOf(whole, whole.length / 2);
        MultipartFile file = MultipartFile.find("multipart/form-data; boundary=xyz", new ByteArrayInputStream(cut), "file");
        EOFException cutShort = assertThrows(EOFException.class, () -> file.content().readAllBytes());
        assertTrue(cutShort.getMessage().contains("cut short"), cutShort.getMessage());
    }

    @Test
    void shouldStillCallABodyWithoutItsBoundaryOneWithNoPartsNotACutUpload() {
        byte[] body = body("xyz", "file", "a.txt", new byte[] {1, 2, 3}, false);
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> MultipartFile.find("multipart/form-data; boundary=other", new ByteArrayInputStream(body), "file"));
        assertTrue(refused.getMessage().contains("no parts"), refused.getMessage());
    }

    @Test
    void shouldKeepContentThatLooksAlmostLikeTheBoundary() throws Exception {
        byte[] content = "line\r\n--xy not quite\r\n--xyY? no: \r\n-xyz\r\n--x".getBytes(StandardCharsets.UTF_8);
        MultipartFile file = MultipartFile.find("multipart/form-data; boundary=\"xyz\"",
                new ByteArrayInputStream(body("xyz", "file", "a.txt", content, false)), "file");
        assertArrayEquals(content, file.content().readAllBytes());
    }

    @Test
    void shouldRefuseBodiesWithoutTheFilePart() {
        byte[] body = body("b", "other", "a.txt", new byte[] {1}, false);
        assertThrows(IllegalArgumentException.class,
                () -> MultipartFile.find("multipart/form-data; boundary=b", new ByteArrayInputStream(body), "file"));
        assertThrows(IllegalArgumentException.class,
                () -> MultipartFile.find("application/json", new ByteArrayInputStream(body), "file"));
    }
}
