package dev.dockyard.transport;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * Request heads whose body framing two HTTP parsers could read differently (request smuggling):
 * Liberty's HTTP channel reads a body by a {@code Transfer-Encoding} it does not know as if the
 * header were absent (by {@code Content-Length}, or as no body), where a proxy in front may read
 * it as chunked or refuse it. So an HTTP/1.x request is refused (400) when it has
 * <ul>
 *   <li>a {@code Transfer-Encoding} other than {@code chunked} alone ({@code gzip, chunked},
 *       {@code xchunked}, {@code chunked, chunked}, an empty one, or the header twice);</li>
 *   <li>a {@code Transfer-Encoding} in an HTTP/1.0 request, which has no chunked coding.</li>
 * </ul>
 *
 * <p>What the channel has already normalised when the HTTP SPI hands over the request cannot be
 * judged here (measured on Liberty 26.0.0.3, {@code TransportProblemsIT}): a header name with
 * whitespace before its colon ({@code Transfer-Encoding : chunked}) arrives trimmed
 * ({@code BNFHeadersImpl.parseHeaderName}), a header line ended by a bare CR arrives as two headers,
 * and a {@code Content-Length} beside {@code Transfer-Encoding: chunked} has been removed (the
 * channel reads the body as chunked and closes the connection after the answer). See
 * docs/user-guide.md "Strict input".
 */
final class FramingRefusals {

    private FramingRefusals() {
    }

    /**
     * What is wrong with the request's framing, or null.
     *
     * @param version the request's protocol ({@code HTTP/1.1}); requests of other versions are not judged
     * @param headers every value of a header by name (any case), an empty list when absent
     */
    static String refusal(String version, Function<String, List<String>> headers) {
        if (version == null || !(version.equalsIgnoreCase("HTTP/1.1") || version.equalsIgnoreCase("HTTP/1.0"))) {
            return null; // HTTP/2 frames its bodies itself
        }
        List<String> transferEncodings = headers.apply("Transfer-Encoding");
        if (transferEncodings == null || transferEncodings.isEmpty()) {
            return null;
        }
        if (version.equalsIgnoreCase("HTTP/1.0")) {
            return "Transfer-Encoding is not allowed in an HTTP/1.0 request";
        }
        List<String> codings = new ArrayList<>();
        for (String value : transferEncodings) {
            for (String coding : (value == null ? "" : value).split(",", -1)) {
                codings.add(coding.trim().toLowerCase(Locale.ROOT));
            }
        }
        return codings.equals(List.of("chunked")) ? null : "The request's Transfer-Encoding must be chunked alone";
    }
}
