package it.dev.dockyard.support;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Comparator;
import java.util.Properties;
import org.junit.jupiter.api.ClassDescriptor;
import org.junit.jupiter.api.ClassOrderer;
import org.junit.jupiter.api.ClassOrdererContext;

/**
 * The order the suites start in when they run beside one another: longest first, by the seconds
 * each took in an earlier run (suite-seconds.properties), so that the run does not end waiting for
 * one long suite started last. Only the order depends on the figures; a suite that passes in this
 * order passes in any (each runs alone too: {@code -Dit.test=X}).
 */
public final class LongestFirst implements ClassOrderer {

    private static final long UNKNOWN = 10;
    private static final Properties SECONDS = load();

    private static Properties load() {
        Properties seconds = new Properties();
        try (InputStream in = LongestFirst.class.getResourceAsStream("/suite-seconds.properties")) {
            if (in != null) {
                seconds.load(in);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return seconds;
    }

    static long seconds(Class<?> suite) {
        return Long.parseLong(SECONDS.getProperty(suite.getSimpleName(), String.valueOf(UNKNOWN)).strip());
    }

    @Override
    public void orderClasses(ClassOrdererContext context) {
        context.getClassDescriptors().sort(Comparator.comparingLong((ClassDescriptor d) -> seconds(d.getTestClass()))
                .reversed().thenComparing(d -> d.getTestClass().getName()));
    }
}
