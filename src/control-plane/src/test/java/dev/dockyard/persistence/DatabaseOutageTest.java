package dev.dockyard.persistence;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.persistence.PersistenceException;
import jakarta.transaction.RollbackException;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import org.junit.jupiter.api.Test;

class DatabaseOutageTest {

    @Test
    void shouldTakeARefusedConnectionUnderJpaForAnOutage() {
        // what Liberty's data source raised through EclipseLink while PostgreSQL was stopped (SQLState 08001)
        SQLException refused = new SQLException("Connection to 127.0.0.1:15443 refused", "08001");
        assertTrue(DatabaseOutage.causes(new PersistenceException("Exception [EclipseLink-4002]", refused)));
        assertTrue(DatabaseOutage.causes(new IllegalStateException(new RuntimeException(refused))));
    }

    @Test
    void shouldTakeASessionTheServersShutdownEndedForAnOutage() {
        // PostgreSQL's fast shutdown ends open sessions with 57P01; a commit's failure may chain it
        SQLException batch = new SQLException("batch entry 0 failed", "XX000");
        batch.setNextException(new SQLException("terminating connection due to administrator command", "57P01"));
        assertTrue(DatabaseOutage.causes(new PersistenceException(batch)));
        assertTrue(DatabaseOutage.causes(new SQLException("the database system is starting up", "57P03")));
    }

    @Test
    void shouldTakeThePoolsConnectionClassesForAnOutageWhateverTheirState() {
        assertTrue(DatabaseOutage.causes(new SQLTransientConnectionException("J2CA0045E: Connection not available")));
    }

    @Test
    void shouldLeaveEveryOtherFailureAnInternalOne() {
        // a broken constraint or a rolled back transaction is the control plane's fault, not an outage
        assertFalse(DatabaseOutage.causes(new PersistenceException(new SQLException("duplicate key", "23505"))));
        assertFalse(DatabaseOutage.causes(new RollbackException("rolled back")));
        assertFalse(DatabaseOutage.causes(new SQLException("no state")));
        assertFalse(DatabaseOutage.causes(null));
    }

    @Test
    void shouldEndOnACauseChainThatLoops() {
        SQLException first = new SQLException("first", "23505");
        SQLException second = new SQLException("second", "23505");
        first.setNextException(second);
        second.setNextException(first);
        RuntimeException looping = new RuntimeException(first);
        assertFalse(DatabaseOutage.causes(looping));
    }
}
