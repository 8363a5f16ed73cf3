package dev.dockyard.application.e2b;

import java.util.List;

/**
 * One page of one of E2B's lists (sandboxes, snapshots).
 *
 * @param items the page's items, in the list's order
 * @param next  where the next page starts ({@code X-Next-Token}), or null on the last page
 */
public record Page<T>(List<T> items, PageToken next) {

    public Page {
        items = List.copyOf(items);
    }
}
