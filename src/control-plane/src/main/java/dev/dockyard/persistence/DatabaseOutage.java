package dev.dockyard.persistence;

import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientConnectionException;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Tells a failure to reach the database (its server stopped or restarting, a connection cut, the
 * pool unable to open one) from every other failure of a request. Such a request is answered
 * {@code 503 database-unavailable} with {@code Retry-After} instead of {@code 500}: the request was
 * sound, and the same request succeeds once the database answers again (the soak's stop of
 * PostgreSQL for 30 s gave 500s on every API before). The outage is logged once per half minute.
 */
public final class DatabaseOutage {

    /** What a client is asked to wait: a restarting PostgreSQL answers again within seconds. */
    public static final int RETRY_AFTER_SECONDS = 5;

    /** What such a request is told, on every face that answers it. */
    public static final String ANSWER = "The control plane's database is not answering; retry in a few seconds";

    private static final Logger LOG = Logger.getLogger(DatabaseOutage.class.getName());
    private static final long LOG_EVERY_NANOS = TimeUnit.SECONDS.toNanos(30);
    private static final AtomicLong lastLogged = new AtomicLong(System.nanoTime() - LOG_EVERY_NANOS);

    private DatabaseOutage() {
    }

    /** Whether the database not answering is what made this fail, anywhere in its causes. */
    public static boolean causes(Throwable failure) {
        return connectionFailure(failure) != null;
    }

    /**
     * Notes an outage seen while answering a request: logged at most once per half minute, so
     * that thirty seconds of refused requests leave one entry, not one stack trace each. That
     * entry carries its trace: a pool that has no connection to give (one leaked, or too small)
     * is answered the same way, and its trace is what tells it from a database that is down.
     */
    public static void note(Throwable failure) {
        long now = System.nanoTime();
        long last = lastLogged.get();
        if (now - last >= LOG_EVERY_NANOS && lastLogged.compareAndSet(last, now)) {
            SQLException cause = connectionFailure(failure);
            LOG.log(Level.WARNING, "The database does not answer (" + (cause == null ? "?" : cause.getClass().getName()
                    + ", SQLState " + cause.getSQLState()) + "): requests that need it are answered 503 until it does"
                    + " (logged once per 30 s)", failure);
        }
    }

    /** The connection failure among the causes (and their chained SQL exceptions, and theirs), or null. */
    private static SQLException connectionFailure(Throwable failure) {
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        Deque<Throwable> next = new ArrayDeque<>();
        if (failure != null) {
            next.add(failure);
        }
        while (!next.isEmpty()) {
            Throwable t = next.poll();
            if (!seen.add(t)) {
                continue;
            }
            if (t instanceof SQLException sql) {
                if (isConnectionFailure(sql)) {
                    return sql;
                }
                if (sql.getNextException() != null) {
                    next.add(sql.getNextException());
                }
            }
            if (t.getCause() != null) {
                next.add(t.getCause());
            }
        }
        return null;
    }

    /**
     * SQLState class 08 (connection exception) and PostgreSQL's shutdown states: 57P01 (the
     * server's fast shutdown ended the session), 57P02 (crash), 57P03 (starting up, not accepting
     * connections yet); and the JDBC classes a driver or pool raises for a connection lost or refused.
     */
    static boolean isConnectionFailure(SQLException e) {
        String state = e.getSQLState();
        return e instanceof SQLTransientConnectionException || e instanceof SQLNonTransientConnectionException
                || e instanceof SQLRecoverableException
                || state != null && (state.startsWith("08") || state.equals("57P01") || state.equals("57P02")
                        || state.equals("57P03"));
    }
}
