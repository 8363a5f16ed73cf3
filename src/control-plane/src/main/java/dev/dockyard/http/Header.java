package dev.dockyard.http;

/** One HTTP header line; a header given several times is several of these, in order. */
public record Header(String name, String value) {

    public boolean is(String other) {
        return name.equalsIgnoreCase(other);
    }
}
