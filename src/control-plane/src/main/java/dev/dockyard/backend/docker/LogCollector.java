package dev.dockyard.backend.docker;

import com.github.dockerjava.api.async.ResultCallback;
import com.github.dockerjava.api.model.Frame;
import java.nio.charset.StandardCharsets;

/** Collects a container's log frames into text, bounded. */
final class LogCollector extends ResultCallback.Adapter<Frame> {

    private static final int MAX_CHARS = 8_000;
    private final StringBuilder text = new StringBuilder();

    @Override
    public void onNext(Frame frame) {
        synchronized (text) {
            if (text.length() < MAX_CHARS) {
                text.append(new String(frame.getPayload(), StandardCharsets.UTF_8));
            }
        }
    }

    String text() {
        synchronized (text) {
            return text.toString().strip();
        }
    }
}
