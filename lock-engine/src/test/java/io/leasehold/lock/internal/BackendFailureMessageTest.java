package io.leasehold.lock.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.LockBackendException;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.inmemory.InMemoryLockBackend;
import java.time.Duration;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A backend failure's message prints the wait and the command timeout as people read them. */
class BackendFailureMessageTest {

    private final InMemoryLockBackend redis = new InMemoryLockBackend();
    private final LockClient client = LockClient.builder(redis.newNode())
            .commandTimeout(Duration.ofMillis(200))
            .closeTimeout(Duration.ofSeconds(1)) // the clean-up of a timed-out acquire waits out the latency
            .build();
    private final LockClient patientClient = LockClient.builder(redis.newNode())
            .commandTimeout(Duration.ofSeconds(5))
            .build();

    @AfterEach
    void close() {
        patientClient.close();
        client.close();
        redis.close();
    }

    @Test
    void shouldPrintTheWaitAndTheLeaseTimeAsPeopleReadThemWhenTheOnlyReplyCameAfterTheLease() {
        // Given a Redis whose replies take longer than the lease they grant
        redis.setLatency(Duration.ofMillis(600));
        LockOptions shortLease =
                LockOptions.builder().leaseTime(Duration.ofMillis(250)).build();
        // When an acquire waits 100 ms and its one attempt's grant comes back too late to be handed out
        LockBackendException thrown = assertThrows(
                LockBackendException.class,
                () -> patientClient.lock("orders:42", shortLease).acquire(Duration.ofMillis(100)));
        // Then the message names the wait, and its cause the lease time, in human units
        assertTrue(
                thrown.getMessage()
                        .startsWith("could not acquire within the wait of 100 ms; the last attempt failed "
                                + "(lock 'orders:42'): "),
                thrown.getMessage());
        assertTrue(thrown.getCause() instanceof TimeoutException, "cause: " + thrown.getCause());
        assertTrue(
                thrown.getCause().getMessage().startsWith("the acquire's reply came after the 250 ms lease"),
                thrown.getCause().getMessage());
        assertFalse(thrown.getMessage().contains("PT"), thrown.getMessage());
    }

    @Test
    void shouldPrintTheCommandTimeoutAsPeopleReadIt() {
        // Given a Redis that answers far later than the command timeout
        redis.setLatency(Duration.ofSeconds(30));
        // When one attempt gets no reply in time
        LockBackendException thrown = assertThrows(
                LockBackendException.class, () -> client.lock("orders:42").tryAcquire());
        // Then the cause names the command timeout in human units
        assertTrue(thrown.getCause() instanceof TimeoutException, "cause: " + thrown.getCause());
        assertEquals(
                "no reply to 'acquire' within the command timeout of 200 ms",
                thrown.getCause().getMessage());
        assertFalse(thrown.getMessage().contains("PT"), thrown.getMessage());
    }
}
