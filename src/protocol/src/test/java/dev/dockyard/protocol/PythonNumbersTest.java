package dev.dockyard.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Python's repr(float), as OpenHands' f-strings print action.timeout (checked against CPython 3). */
class PythonNumbersTest {

    @Test
    void shouldWriteFloatsAsPythonReprDoes() {
        assertEquals("3.0", PythonNumbers.repr(3));
        assertEquals("2.5", PythonNumbers.repr(2.5));
        assertEquals("0.1", PythonNumbers.repr(0.1));
        assertEquals("120.0", PythonNumbers.repr(120));
        assertEquals("0.0001", PythonNumbers.repr(0.0001));
        assertEquals("1e-05", PythonNumbers.repr(0.00001));
        assertEquals("12345678.9", PythonNumbers.repr(12345678.9));
        assertEquals("1e+16", PythonNumbers.repr(1e16));
        assertEquals("1.5e+16", PythonNumbers.repr(1.5e16));
        assertEquals("1000000000000000.0", PythonNumbers.repr(1e15));
    }

    @Test
    void shouldPreferTheRequestedTimeoutOverTheAppliedOne() {
        assertEquals("2.5", PythonNumbers.seconds(2.5, Duration.ofMillis(2500)));
        assertEquals("120.0", PythonNumbers.seconds(null, Duration.ofSeconds(120)));
    }
}
