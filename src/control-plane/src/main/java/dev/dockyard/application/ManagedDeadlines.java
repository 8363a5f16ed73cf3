package dev.dockyard.application;

import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedScheduledExecutorService;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/** {@link Deadlines} on the server's managed scheduler: one timer per deadline, no thread per wait. */
@ApplicationScoped
public class ManagedDeadlines implements Deadlines {

    @Resource
    ManagedScheduledExecutorService scheduler;

    @Override
    public Runnable after(Duration delay, Runnable task) {
        ScheduledFuture<?> scheduled = scheduler.schedule(task, delay.toMillis(), TimeUnit.MILLISECONDS);
        return () -> scheduled.cancel(false);
    }
}
