package dev.dockyard.api;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** A request with two Content-Type headers is refused (issue 26, item 11b). */
class SingleHeadersTest {

    @Test
    void shouldFindAContentTypeGivenTwice() {
        assertEquals(Optional.of("Content-Type"), SingleHeaders.repeated(Map.of("Content-Type",
                List.of("application/json", "text/plain"))));
        assertEquals(Optional.of("Content-Type"), SingleHeaders.repeated(Map.of("content-type",
                List.of("application/json", "application/json"))), "even the same value twice");
        assertEquals(Optional.of("Content-Type"), SingleHeaders.repeated(Map.of("Content-Type",
                List.of("application/json"), "CONTENT-TYPE", List.of("text/plain"))), "names compared without case");
    }

    @Test
    void shouldLetOneContentTypeAndRepeatedListHeadersThrough() {
        assertEquals(Optional.empty(), SingleHeaders.repeated(Map.of("Content-Type",
                List.of("multipart/form-data; boundary=\"a,b\""), "Accept", List.of("a/b", "c/d"))));
        assertEquals(Optional.empty(), SingleHeaders.repeated(Map.of()));
        assertEquals(Optional.empty(), SingleHeaders.repeated(Map.of("Content-Length", List.of("33", "33"))),
                "Liberty's HTTP/2 side repeats a sent length");
    }
}
