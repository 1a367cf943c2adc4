package io.leasehold.lock.quorum;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.spi.LockKeys;
import io.leasehold.lock.testkit.InMemoryFixture;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Promise 2 of the design: fencing tokens rise along the acquisition order without trusting clocks,
 * because a commit is refused below a member's floor and a majority of floors hold every token handed out.
 */
class QuorumTokensTest {

    private static final String NAME = "orders:13";

    /** Member 0's clock runs a day ahead of the others' (far more than any lease). */
    private final List<InMemoryFixture> fixtures = List.of(
            new InMemoryFixture(Clock.offset(Clock.systemUTC(), Duration.ofDays(1))),
            new InMemoryFixture(),
            new InMemoryFixture());

    @AfterEach
    void close() {
        fixtures.forEach(InMemoryFixture::close);
    }

    private QuorumBackend quorum() {
        return QuorumBackend.of(
                fixtures.stream().map(InMemoryFixture::newBackend).toList());
    }

    @Test
    void shouldRaiseTokensAfterTheMemberWithTheFastClockIsGoneAndTheCountersExpired() {
        try (LockClient a = LockClient.builder(quorum()).build();
                LockClient b = LockClient.builder(quorum()).build()) {
            // Given a lease granted while the member whose clock runs a day ahead took part: its token
            // comes from that clock, a day of microseconds above what the other two members' clocks say
            Lease first = a.lock(NAME).acquire(Duration.ofSeconds(5));
            long fastClockMicros = fixtures.get(0).backend().clock().millis() * 1000;
            assertTrue(
                    first.fencingToken()
                            >= fastClockMicros - Duration.ofMinutes(1).toNanos() / 1000,
                    "the first token " + first.fencingToken() + " comes from the fast clock");
            assertTrue(first.release());
            // When that member is gone, and the other members' counters expired (idle for a day)
            fixtures.get(0).makeUnavailable();
            for (int i = 1; i < 3; i++) {
                fixtures.get(i).deleteKey(LockKeys.fenceKey("leasehold:", NAME));
            }
            Lease second = b.lock(NAME).acquire(Duration.ofSeconds(5));
            // Then the next token is still larger: the two members' floors refused their own clocks' tokens
            // (exactly one above them: the commit was refused, and sent again with the largest floor + 1)
            assertEquals(first.fencingToken() + 1, second.fencingToken(), "token after " + first.fencingToken());
            for (int i = 1; i < 3; i++) {
                assertEquals(
                        Optional.of(Long.toString(second.fencingToken())),
                        fixtures.get(i).backend().hashField(LockKeys.quorumRecordKey("leasehold:"), "floor"),
                        "floor of member " + i);
            }
            assertTrue(second.release());
        }
    }
}
