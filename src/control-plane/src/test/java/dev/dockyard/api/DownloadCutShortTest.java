package dev.dockyard.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.application.Refused;
import dev.dockyard.application.runtimes.SandboxFiles;
import jakarta.servlet.http.HttpServletResponse;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.lang.reflect.Proxy;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * A download whose executor stops sending mid-zip (the soak's engine restart, 2026-11-30 21:47:
 * a {@code 500} whose body was the zip's first bytes): before anything went out, the answer is the
 * refusal, its buffer and zip headers dropped; after, the stream is cut, never ended as if whole.
 */
class DownloadCutShortTest {

    private static final Refused GONE = new Refused(Refused.Reason.EXECUTOR_UNAVAILABLE, "gone").retryAfter(2);

    private final AtomicBoolean committed = new AtomicBoolean();
    private final AtomicBoolean reset = new AtomicBoolean();
    private final HttpServletResponse servlet = (HttpServletResponse) Proxy.newProxyInstance(
            getClass().getClassLoader(), new Class<?>[] {HttpServletResponse.class}, (proxy, method, args) -> {
                switch (method.getName()) {
                    case "isCommitted":
                        return committed.get();
                    case "reset":
                        reset.set(true);
                        return null;
                    default:
                        throw new UnsupportedOperationException(method.getName());
                }
            });

    /** "PK" and then the executor's connection breaks. */
    private static InputStream cutAfterTwoBytes() {
        return new SequenceInputStream(new ByteArrayInputStream("PK".getBytes()), new InputStream() {
            @Override
            public int read() throws IOException {
                throw new IOException("chunked transfer encoding, state: READING_LENGTH");
            }
        });
    }

    private static SandboxFiles.Download download(InputStream zip) {
        return new SandboxFiles.Download(zip, "attachment", e -> GONE);
    }

    @Test
    void shouldAnswerTheRefusalWhenNothingHasGoneOutYet() throws IOException {
        InputStream zip = cutAfterTwoBytes();
        byte[] buffer = new byte[8192];
        assertEquals(2, RuntimeResource.read(zip, buffer, download(zip), servlet));
        Refused refused = assertThrows(Refused.class, () -> RuntimeResource.read(zip, buffer, download(zip), servlet));
        assertSame(GONE, refused);
        assertTrue(reset.get(), "the zip's buffered bytes and headers are dropped");
    }

    @Test
    void shouldCutTheStreamOnceTheAnswerIsOut() throws IOException {
        InputStream zip = cutAfterTwoBytes();
        byte[] buffer = new byte[8192];
        assertEquals(2, RuntimeResource.read(zip, buffer, download(zip), servlet));
        committed.set(true);
        assertThrows(IOException.class, () -> RuntimeResource.read(zip, buffer, download(zip), servlet));
        assertFalse(reset.get());
    }
}
