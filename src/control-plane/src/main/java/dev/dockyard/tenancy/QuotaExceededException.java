package dev.dockyard.tenancy;

/** A new runtime would pass one of the user's limits (API: 429 naming the limit). */
public class QuotaExceededException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String limit;
    private final Number allowed;
    private final Number inUse;

    public QuotaExceededException(String limit, Number allowed, Number inUse, Number asked) {
        super("Quota " + limit + " exceeded: " + inUse + " in use + " + asked + " asked > " + allowed + " allowed");
        this.limit = limit;
        this.allowed = allowed;
        this.inUse = inUse;
    }

    public String limit() {
        return limit;
    }

    public Number allowed() {
        return allowed;
    }

    public Number inUse() {
        return inUse;
    }
}
