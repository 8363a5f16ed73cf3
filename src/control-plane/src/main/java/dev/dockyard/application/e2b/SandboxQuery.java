package dev.dockyard.application.e2b;

import java.time.Instant;
import java.util.Map;
import java.util.Set;

/**
 * E2B's {@code GET /v2/sandboxes} query, decoded: which sandboxes, in which order, which page.
 *
 * @param metadata     key-values a sandbox's metadata must all hold (AND); empty: any
 * @param states       the states wanted; empty: both
 * @param template     the template a sandbox was created from, or null: any
 * @param startedAfter only sandboxes started after this, or null
 * @param ascending    oldest first ({@code order=asc}); else newest first, E2B's default
 * @param limit        at most this many, 1 to {@link #MAX_LIMIT}
 * @param after        where the previous page ended ({@code nextToken}), or null for the first page
 */
public record SandboxQuery(Map<String, String> metadata, Set<SandboxState> states, String template,
                           Instant startedAfter, boolean ascending, int limit, PageToken after) {

    /** E2B's default and maximum page size. */
    public static final int MAX_LIMIT = 100;

    public SandboxQuery {
        metadata = Map.copyOf(metadata);
        states = Set.copyOf(states);
    }

    /** E2B's v1 list ({@code GET /sandboxes}): every running sandbox whose metadata holds these, unpaged. */
    public static SandboxQuery running(Map<String, String> metadata) {
        return new SandboxQuery(metadata, Set.of(SandboxState.RUNNING), null, null, false, Integer.MAX_VALUE, null);
    }
}
