package dev.dockyard.backend.docker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.github.dockerjava.api.exception.InternalServerErrorException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** A pause the kernel could not freeze in time is tried again; any other failure is not. */
class FreezeRetryTest {

    private static final String UNABLE = "{\"message\":\"Cannot pause container 32a3: OCI runtime pause failed: "
            + "unable to freeze: unknown\"}";

    @Test
    void shouldTryAgainWhenTheContainerCouldNotBeFrozenInTime() {
        AtomicInteger calls = new AtomicInteger();
        ContainerLifecycle.freezing(() -> {
            if (calls.incrementAndGet() < 3) {
                throw new InternalServerErrorException(UNABLE);
            }
        }, 3, 1);
        assertEquals(3, calls.get());
    }

    @Test
    void shouldGiveUpAfterItsTriesAndNotRetryAnotherFailure() {
        AtomicInteger calls = new AtomicInteger();
        assertThrows(InternalServerErrorException.class, () -> ContainerLifecycle.freezing(() -> {
            calls.incrementAndGet();
            throw new InternalServerErrorException(UNABLE);
        }, 3, 1));
        assertEquals(3, calls.get());

        AtomicInteger other = new AtomicInteger();
        assertThrows(InternalServerErrorException.class, () -> ContainerLifecycle.freezing(() -> {
            other.incrementAndGet();
            throw new InternalServerErrorException("{\"message\":\"no space left on device\"}");
        }, 3, 1));
        assertEquals(1, other.get());
    }
}
