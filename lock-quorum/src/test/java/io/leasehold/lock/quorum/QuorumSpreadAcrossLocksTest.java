package io.leasehold.lock.quorum;

import static io.leasehold.lock.quorum.Members.ownerOf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.spi.LockBackend;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Review attack (helper 64): the spread's put-back is refused below the member's floor, and the floor is
 * the largest token committed on the member for any lock of the prefix (the quorum record
 * {@code <prefix>quorum}), not for this lock. F12's promise: a lease granted on exactly 3 of 5 members
 * under contention survives the death of two of them. B's lease is granted on members 0, 1 and 2 (members
 * 3 and 4 held by another owner of B's lock); before members 3 and 4 free up, another lock of the same
 * prefix is taken and released once (as any application with more than one lock does all the time); then
 * members 3 and 4 free up within the spread's tries, and members 0 and 1 die. Without the other lock
 * (the control) B's extend is confirmed.
 */
class QuorumSpreadAcrossLocksTest {

    private static final String NAME = "spread:floor64";
    private static final String KEY = Members.lockKey(NAME);
    private static final String OTHER = "x.1:1";
    private static final LockOptions NO_RENEW = LockOptions.builder()
            .leaseTime(Duration.ofSeconds(30))
            .autoRenew(false)
            .build();

    private FiveMembers members;
    private final List<LockClient> clients = new ArrayList<>();

    @AfterEach
    void close() {
        clients.forEach(LockClient::close);
        if (members != null) {
            members.close();
        }
    }

    private LockClient client() {
        List<LockBackend> backends = new ArrayList<>();
        for (int m = 0; m < 5; m++) {
            backends.add(members.newBackend(m));
        }
        LockClient client = LockClient.builder(QuorumBackend.of(backends)).build();
        clients.add(client);
        RuntimeException last = null;
        for (int i = 0; i < 3; i++) {
            try {
                client.lock("warm-up").acquire(Duration.ofSeconds(30)).release();
                return client;
            } catch (RuntimeException e) {
                last = e;
            }
        }
        throw last;
    }

    private String values() {
        List<String> v = new ArrayList<>();
        for (int m = 0; m < 5; m++) {
            v.add(members.value(m) + " (pttl " + members.pttl(m) + ")");
        }
        return v.toString();
    }

    @ParameterizedTest(name = "{0}, another lock taken meanwhile: {1}")
    @CsvSource({"in-memory, false", "in-memory, true", "lettuce, false", "lettuce, true", "jedis, false", "jedis, true"
    })
    void shouldKeepALeaseGrantedOnThreeOfFiveThroughTwoDeathsWhenAnotherLockIsUsedMeanwhile(
            String where, boolean otherLock) throws Exception {
        members = where.equals("in-memory") ? FiveMembers.inMemory(KEY) : FiveMembers.redis(where, KEY);
        LockClient b = client();
        LockClient other = client();
        members.write(3, OTHER);
        members.write(4, OTHER);
        Lease lease = b.lock(NAME, NO_RENEW).acquire(Duration.ofSeconds(10));
        long grantedAt = System.nanoTime();
        String owner = ownerOf(members.value(0));
        assertEquals(OTHER, members.value(3), "member 3 held by another owner at B's grant");
        if (otherLock) {
            // another lock of the same prefix, taken and released by another client (on every member)
            other.lock("spread:another-lock").acquire(Duration.ofSeconds(10)).release();
        }
        members.delete(3); // members 3 and 4 free up while B's spread still tries them
        members.delete(4);
        long deadline = grantedAt + TimeUnit.MILLISECONDS.toNanos(4_500);
        while (System.nanoTime() < deadline
                && !(ownerOf(members.value(3)).equals(owner)
                        && ownerOf(members.value(4)).equals(owner))) {
            Thread.sleep(10); // bounded: the spread's tries end 2.55 s after the grant
        }
        String beforeDeaths = values();
        members.kill(0);
        members.kill(1);
        try {
            lease.extend(Duration.ofSeconds(10));
        } catch (RuntimeException e) {
            throw new AssertionError(
                    "B's extend after two of five members died failed (3 of 5 up, nobody else holds the lock);"
                            + " values before the deaths: " + beforeDeaths + ", after: " + values(),
                    e);
        }
        assertFalse(lease.lost().isDone(), () -> "B lost: " + lease.lost().join());
        assertTrue(lease.release(), () -> "B's release; values before the deaths: " + beforeDeaths);
    }

    /**
     * The same with auto-renew on (3 s lease, renewed every second): the watchdog's renewals find B's lease
     * missing on members 3 and 4 and ask for it to be put back (quorum-restore.lua, the same floor check),
     * for 3 s after the spread's tries ended. With another lock of the prefix taken meanwhile, every put-back
     * is refused; the control (no other lock) has the lease on all five.
     */
    @ParameterizedTest(name = "{0}, another lock taken meanwhile: {1}")
    @CsvSource({"in-memory, false", "in-memory, true", "lettuce, false", "lettuce, true", "jedis, false", "jedis, true"
    })
    void shouldKeepARenewedLeaseGrantedOnThreeOfFiveThroughTwoDeathsWhenAnotherLockIsUsedMeanwhile(
            String where, boolean otherLock) throws Exception {
        members = where.equals("in-memory") ? FiveMembers.inMemory(KEY) : FiveMembers.redis(where, KEY);
        LockClient b = client();
        LockClient other = client();
        members.write(3, OTHER);
        members.write(4, OTHER);
        Lease lease = b.lock(
                        NAME,
                        LockOptions.builder()
                                .leaseTime(Duration.ofSeconds(3))
                                .autoRenew(true)
                                .build())
                .acquire(Duration.ofSeconds(10));
        long grantedAt = System.nanoTime();
        assertEquals(OTHER, members.value(3), "member 3 held by another owner at B's grant");
        if (otherLock) {
            other.lock("spread:another-lock").acquire(Duration.ofSeconds(10)).release();
        }
        members.delete(3);
        members.delete(4);
        // the spread's tries (2.55 s) and three renewals' put-backs after them
        long settled = grantedAt + TimeUnit.MILLISECONDS.toNanos(2_550 + 3_000);
        while (System.nanoTime() < settled) {
            Thread.sleep(20);
        }
        String beforeDeaths = values();
        members.kill(0);
        members.kill(1);
        try {
            lease.extend(Duration.ofSeconds(10));
        } catch (RuntimeException e) {
            throw new AssertionError(
                    "B's extend after two of five members died failed (3 of 5 up, nobody else holds the lock);"
                            + " values before the deaths: " + beforeDeaths + ", after: " + values(),
                    e);
        }
        assertFalse(lease.lost().isDone(), () -> "B lost: " + lease.lost().join());
        assertTrue(lease.release(), () -> "B's release; values before the deaths: " + beforeDeaths);
    }
}
