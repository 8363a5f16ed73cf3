package dev.dockyard.application.e2b;

import dev.dockyard.runtime.SandboxRuntime;
import java.util.List;

/**
 * One page of E2B's sandbox list.
 *
 * @param sandboxes the page's runtimes, in the query's order
 * @param next      where the next page starts ({@code X-Next-Token}), or null on the last page
 */
public record SandboxPage(List<SandboxRuntime> sandboxes, PageToken next) {

    public SandboxPage {
        sandboxes = List.copyOf(sandboxes);
    }
}
