package dev.dockyard.executor.bash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Field;
import org.junit.jupiter.api.Test;

class OutputBufferTest {

    private static int capacity(OutputBuffer buffer) throws Exception {
        Field text = OutputBuffer.class.getDeclaredField("text");
        text.setAccessible(true);
        return ((StringBuilder) text.get(buffer)).capacity();
    }

    @Test
    void shouldGiveBackALargeOutputsMemoryOnceDiscarded() throws Exception {
        OutputBuffer buffer = new OutputBuffer();
        char[] chunk = "y".repeat(8192).toCharArray();
        for (int i = 0; i < 640; i++) {
            buffer.append(chunk, 0, chunk.length);
        }
        assertTrue(capacity(buffer) > OutputBuffer.MAX_CHARS, "grown by the output");
        buffer.append("$ ".toCharArray(), 0, 2);
        buffer.discardBefore(buffer.length() - 2);
        assertEquals("$ ", buffer.substring(0, buffer.length()));
        assertTrue(capacity(buffer) <= OutputBuffer.SMALL, "capacity " + capacity(buffer));
    }
}
