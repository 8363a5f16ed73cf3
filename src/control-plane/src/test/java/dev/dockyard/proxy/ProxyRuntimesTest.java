package dev.dockyard.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.dockyard.application.remote.ProxyTarget;
import dev.dockyard.application.remote.ProxyTargets;
import dev.dockyard.persistence.DatabaseOutage;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.util.TypeLiteral;
import jakarta.persistence.PersistenceException;
import java.lang.annotation.Annotation;
import java.sql.SQLException;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** What the proxy answers for a service whose connection failed, as the runtime's state says. */
class ProxyRuntimesTest {

    private final ProxyExchange main = new ProxyExchange(new ServiceRoute("rt-1", ProxyTarget.MAIN, "/rt-1", "/", false),
            null, List.of(), null, null);

    @Test
    void aDroppedConnectionWhileTheDatabaseIsAwayIsA503WithRetryAfterNotA502() {
        // the soak's PostgreSQL stop (2026-12-01): a stale pooled connection failed the check, and the
        // client got 502 "Runtime service main failed" instead of the outage's 503
        ProxyRuntimes runtimes = over(() -> {
            throw new PersistenceException(new SQLException("Connection to 127.0.0.1:15442 refused", "08001"));
        });

        Admission.Refused refused = runtimes.dropped(main);

        assertEquals(503, refused.status());
        assertEquals(DatabaseOutage.RETRY_AFTER_SECONDS, refused.retryAfterSeconds());
        assertEquals(DatabaseOutage.ANSWER, refused.detail());
    }

    @Test
    void aCheckThatFailsOtherwiseLeavesTheServicesFailure() {
        ProxyRuntimes runtimes = over(() -> {
            throw new IllegalStateException("something else");
        });

        Admission.Refused refused = runtimes.unreachable(main);

        assertEquals(502, refused.status());
        assertEquals("Runtime service main is unreachable", refused.detail());
    }

    @Test
    void aSandboxFoundStoppedIsBeingRecovered() {
        ProxyRuntimes runtimes = over(() -> true);

        Admission.Refused refused = runtimes.unreachable(main);

        assertEquals(503, refused.status());
        assertEquals(Admission.recovering("Runtime"), refused);
    }

    /** A proxy whose port answers {@code unanswered} with {@code answer}. */
    private static ProxyRuntimes over(Supplier<Boolean> answer) {
        ProxyRuntimes runtimes = new ProxyRuntimes();
        runtimes.targets = new Only<>(new ProxyTargets() {
            @Override
            public Optional<ProxyTarget> find(String runtimeId) {
                return Optional.empty();
            }

            @Override
            public Optional<ProxyTarget> findByKey(Predicate<String> matches) {
                return Optional.empty();
            }

            @Override
            public void traffic(String runtimeId, String service, boolean websocket, long bytesIn, long bytesOut) {
            }

            @Override
            public boolean unanswered(String runtimeId) {
                return answer.get();
            }
        });
        return runtimes;
    }

    /** One bean, as CDI would resolve it. */
    private record Only<T>(T bean) implements Instance<T> {
        @Override
        public T get() {
            return bean;
        }

        @Override
        public Iterator<T> iterator() {
            return List.of(bean).iterator();
        }

        @Override
        public boolean isUnsatisfied() {
            return false;
        }

        @Override
        public boolean isAmbiguous() {
            return false;
        }

        @Override
        public Instance<T> select(Annotation... qualifiers) {
            throw new UnsupportedOperationException();
        }

        @Override
        public <U extends T> Instance<U> select(Class<U> subtype, Annotation... qualifiers) {
            throw new UnsupportedOperationException();
        }

        @Override
        public <U extends T> Instance<U> select(TypeLiteral<U> subtype, Annotation... qualifiers) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void destroy(T instance) {
        }

        @Override
        public Handle<T> getHandle() {
            throw new UnsupportedOperationException();
        }

        @Override
        public Iterable<? extends Handle<T>> handles() {
            throw new UnsupportedOperationException();
        }
    }
}
