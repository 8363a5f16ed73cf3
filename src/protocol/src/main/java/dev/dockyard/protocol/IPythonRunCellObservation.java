package dev.dockyard.protocol;

import java.util.List;

/** The output of an IPython cell, with the images it displayed as data URLs (none: {@code image_urls} is null). */
public record IPythonRunCellObservation(String content, String code, List<String> imageUrls)
        implements Observation {

    public IPythonRunCellObservation {
        content = content == null ? "" : content;
        imageUrls = imageUrls == null ? List.of() : List.copyOf(imageUrls);
    }

    @Override
    public String type() {
        return "run_ipython";
    }

    @Override
    public String message() {
        return "Code executed in IPython cell.";
    }

    /** OpenHands' IPythonRunCellObservation.success: always true, cells have no exit code. */
    @Override
    public Boolean success() {
        return true;
    }
}
