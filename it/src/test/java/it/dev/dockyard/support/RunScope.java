package it.dev.dockyard.support;

import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A resource of the whole run, in JUnit's root store: made by the first suite that asks for it,
 * whatever the order, and closed when the run ends (the shared and disposable control planes, the
 * remote suites' second control plane). A start that failed fails every suite that asks again,
 * without a second try.
 */
final class RunScope {

    /** How the resource starts. */
    interface Start<T extends ExtensionContext.Store.CloseableResource> {
        T start() throws Exception;
    }

    private RunScope() {
    }

    static <T extends ExtensionContext.Store.CloseableResource> T once(ExtensionContext context, Class<T> type,
                                                                       String what, Start<T> start) {
        return context.getRoot().getStore(ExtensionContext.Namespace.create(type)).getOrComputeIfAbsent(type, key -> {
            try {
                return start.start();
            } catch (Exception e) {
                throw new IllegalStateException(what + " did not start", e);
            }
        }, type);
    }
}
