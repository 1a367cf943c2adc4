package io.leasehold.lock.quorum;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.spi.LockKeys;
import io.leasehold.lock.testkit.InMemoryFixture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Many clients starting at once on a new quorum (no member holds a record yet): the first client's joins
 * are on their way while the others probe, so those find one member with a record and the others
 * without. They must wait for the joins on their way rather than fail (docs/design/quorum-locks.md,
 * "Attack on the reset detection", F4), and no member may be reset by the race.
 */
class QuorumNewQuorumStartTest {

    private static final int CLIENTS = 12;
    private static final long LEASE_MS = 2_000;

    private final Members members = new Members(3);
    private final List<QuorumBackend> clients = new ArrayList<>();

    @AfterEach
    void close() {
        clients.forEach(QuorumBackend::close);
        members.close();
    }

    @Test
    void shouldGrantEveryClientThatStartsWhileTheFirstClientsJoinsAreOnTheirWay() throws InterruptedException {
        // the first client's calls reach member 0 at once, members 1 and 2 after 100 ms: its join is on
        // member 0 100 ms before it reaches the others (within the 200 ms a member found without a record
        // is left before it is reset, QuorumEnlistment.EMPTY_NANOS)
        members.store(1).setLatency(Duration.ofMillis(100));
        members.store(2).setLatency(Duration.ofMillis(100));
        for (int i = 0; i < CLIENTS; i++) {
            clients.add(QuorumBackend.builder(members.fixtures.stream()
                            .map(InMemoryFixture::newBackend)
                            .toList())
                    .maxLeaseTime(Duration.ofMillis(LEASE_MS))
                    .build());
        }
        List<CompletableFuture<Object>> acquisitions = new ArrayList<>();
        acquisitions.add(acquire(0));
        // the others start once the first client's join is on member 0, before it reaches members 1 and 2
        Members.await(
                "the first client's join reached member 0",
                () -> members.store(0).exists(LockKeys.quorumRecordKey(Members.PREFIX)));
        // the others' calls reach every member at once (the first client's joins keep their delay)
        members.store(1).setLatency(Duration.ZERO);
        members.store(2).setLatency(Duration.ZERO);
        for (int i = 1; i < CLIENTS; i++) {
            acquisitions.add(acquire(i));
        }

        List<String> failures = new ArrayList<>();
        for (int i = 0; i < CLIENTS; i++) {
            Object reply = outcome(acquisitions.get(i));
            // a "not granted" reply (its own name is free: commits that met a member still joining) is
            // asked again after its back-off, as the engine does within the caller's wait; a failure is not
            for (int retry = 0; retry < 3 && isContended(reply); retry++) {
                Thread.sleep((Long) ((List<?>) reply).get(2));
                reply = outcome(acquire(i));
            }
            if (!(reply instanceof List && Long.valueOf(1).equals(((List<?>) reply).get(0)))) {
                failures.add("client " + i + ": " + reply);
            }
        }
        assertTrue(failures.isEmpty(), failures.size() + " of " + CLIENTS + " not granted: " + failures);
        for (int i = 0; i < 3; i++) {
            assertEquals(4L, standing(i), "member " + i + " takes part (not reset by the race)");
        }
    }

    private CompletableFuture<Object> acquire(int client) {
        String name = "orders:" + client;
        return clients.get(client)
                .eval(Members.ACQUIRE, Members.acquireKeys(name), Members.acquireArgs("c" + client, LEASE_MS, "1"));
    }

    private static boolean isContended(Object reply) {
        return reply instanceof List && Long.valueOf(0).equals(((List<?>) reply).get(0));
    }

    private static Object outcome(CompletableFuture<Object> acquisition) {
        try {
            return acquisition.join();
        } catch (CompletionException e) {
            return e.getCause();
        }
    }

    private long standing(int i) {
        members.store(i).setLatency(Duration.ZERO);
        List<?> reply = (List<?>) members.store(i)
                .eval(Members.ENLIST, List.of(LockKeys.quorumRecordKey(Members.PREFIX)), List.of("probe", ""))
                .join();
        return (Long) reply.get(0);
    }
}
