package dev.dockyard.images;

import java.util.List;
import java.util.TreeSet;

/** What a runtime image adds to its base at build time: apt packages and/or a shell snippet. */
public record ExtraDependencies(List<String> aptPackages, String script) {

    public static final ExtraDependencies NONE = new ExtraDependencies(List.of(), "");

    public ExtraDependencies {
        // the order packages are listed in does not change what gets installed
        aptPackages = List.copyOf(new TreeSet<>(aptPackages == null ? List.of() : aptPackages));
        script = script == null ? "" : script.strip();
    }

    public boolean isEmpty() {
        return aptPackages.isEmpty() && script.isEmpty();
    }
}
