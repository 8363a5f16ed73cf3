package dev.dockyard.application;

import java.time.Duration;

/** Runs a task once a delay has passed, without a thread waiting for it; tests drive time by hand. */
public interface Deadlines {

    /** Schedules {@code task} after {@code delay}; the answer cancels it. */
    Runnable after(Duration delay, Runnable task);
}
