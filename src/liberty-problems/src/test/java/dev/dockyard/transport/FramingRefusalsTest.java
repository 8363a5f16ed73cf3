package dev.dockyard.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/** Ambiguous body framing refused before any application (issue 26, item 10). */
class FramingRefusalsTest {

    /** Header lookup as Liberty's request gives it: by name in any case. */
    private static Function<String, List<String>> headers(String... nameValue) {
        Map<String, List<String>> map = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        for (int i = 0; i < nameValue.length; i += 2) {
            map.computeIfAbsent(nameValue[i], k -> new ArrayList<>()).add(nameValue[i + 1]);
        }
        return name -> map.getOrDefault(name, List.of());
    }

    @Test
    void shouldRefuseATransferEncodingOtherThanChunkedAlone() {
        for (String coding : List.of("gzip", "xchunked", "chunked, gzip", "gzip, chunked", "chunked, chunked",
                "identity", "", " ", "chunked;q=1", "chunked,", ",chunked")) {
            assertEquals("The request's Transfer-Encoding must be chunked alone",
                    FramingRefusals.refusal("HTTP/1.1", headers("Transfer-Encoding", coding)), coding);
        }
        assertNotNull(FramingRefusals.refusal("HTTP/1.1", headers("Transfer-Encoding", "chunked",
                "transfer-encoding", "chunked")), "the header twice");
        assertNotNull(FramingRefusals.refusal("HTTP/1.1", headers("Transfer-Encoding", "gzip",
                "Transfer-Encoding", "chunked")));
    }

    @Test
    void shouldRefuseAnUnknownTransferEncodingBesideContentLength() {
        // the channel would read this body by its Content-Length
        assertEquals("The request's Transfer-Encoding must be chunked alone", FramingRefusals.refusal("HTTP/1.1",
                headers("Content-Length", "5", "Transfer-Encoding", "xchunked")));
    }

    @Test
    void shouldRefuseTransferEncodingInHttp10() {
        assertNotNull(FramingRefusals.refusal("HTTP/1.0", headers("Transfer-Encoding", "chunked")));
    }

    @Test
    void shouldLetWellFramedRequestsThrough() {
        assertNull(FramingRefusals.refusal("HTTP/1.1", headers("Transfer-Encoding", "chunked")));
        assertNull(FramingRefusals.refusal("HTTP/1.1", headers("Transfer-Encoding", "CHUNKED")));
        assertNull(FramingRefusals.refusal("HTTP/1.1", headers("Content-Length", "12")));
        assertNull(FramingRefusals.refusal("HTTP/1.1", headers()));
        assertNull(FramingRefusals.refusal("HTTP/1.0", headers("Content-Length", "3")));
        assertNull(FramingRefusals.refusal("HTTP/2.0", headers("Transfer-Encoding", "chunked", "Content-Length", "3")),
                "HTTP/2 frames its bodies itself");
    }
}
