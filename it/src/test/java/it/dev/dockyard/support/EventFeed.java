package it.dev.dockyard.support;

import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.Predicate;
import org.awaitility.Awaitility;

/**
 * An event stream read in the background while a test acts: the test waits for what it expects
 * ({@link #await}) instead of reading for a fixed time, and closes the stream when done.
 */
public final class EventFeed implements AutoCloseable {

    private final InputStream body;
    private final StringBuffer text = new StringBuffer();
    private final Thread reader;

    EventFeed(InputStream body) {
        this.body = body;
        reader = new Thread(this::read, "event-feed");
        reader.setDaemon(true);
        reader.start();
    }

    private void read() {
        // one reader for the whole stream: a character split between two reads stays whole
        char[] chunk = new char[8192];
        try (Reader reader = new InputStreamReader(body, StandardCharsets.UTF_8)) {
            for (int n; (n = reader.read(chunk)) >= 0; ) {
                text.append(chunk, 0, n);
            }
        } catch (IOException closed) {
            // closed by the test, or by the server
        }
    }

    /** What came so far. */
    String text() {
        return text.toString();
    }

    /** Waits until what came satisfies {@code condition}; what came by then. */
    public String await(Predicate<String> condition, Duration within) {
        Awaitility.await().atMost(within).pollInterval(Duration.ofMillis(50)).until(() -> condition.test(text()));
        return text();
    }

    @Override
    public void close() throws IOException {
        body.close();
    }
}
