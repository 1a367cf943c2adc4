package io.leasehold.lock.quorum;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.spi.ScriptNames;
import io.leasehold.lock.testkit.ForwardingLockBackend;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Attack on the put-back: a member back after a sit-out missing 1,000 leases of one client. */
class QuorumRestoreBatchTest {

    private static final int LEASES = 1_000;

    private final Members members = new Members(3);

    @AfterEach
    void close() {
        members.close();
    }

    static final class CountingRestores extends ForwardingLockBackend {
        final AtomicInteger calls = new AtomicInteger();

        CountingRestores(LockBackend delegate) {
            super(delegate);
        }

        @Override
        public CompletableFuture<Object> eval(LuaScript script, List<String> keys, List<String> args) {
            if (ScriptNames.QUORUM_RESTORE.equals(script.name())) {
                calls.incrementAndGet();
            }
            return delegate().eval(script, keys, args);
        }
    }

    @Test
    void shouldPutBackAThousandMissingLeasesInOneCallAndConfirmThemAll() throws Exception {
        members.inUse();
        CountingRestores member2 = new CountingRestores(members.fixtures.get(2).newBackend());
        QuorumMembers quorum = QuorumMembers.of(List.of(
                members.fixtures.get(0).newBackend(), members.fixtures.get(1).newBackend(), member2));
        QuorumRenewals renewals = new QuorumRenewals(
                quorum, QuorumBackend.STRAGGLER_GRACE, new ReleasedOwners(), new ReleaseResends(quorum, 60_000));
        List<String> keys = new ArrayList<>();
        List<String> args = new ArrayList<>();
        args.add("30000");
        for (int i = 0; i < LEASES; i++) {
            String key = Members.lockKey("batch:" + i);
            keys.add(key);
            members.store(0).writeKey(key, "o1:" + (i + 1));
            members.store(1).writeKey(key, "o1:" + (i + 1));
            args.add("o1:" + (i + 1));
            args.add("o1:" + (i + 1) + ":1");
        }
        long start = System.nanoTime();
        List<?> reply = (List<?>) renewals.renew(Members.RENEW, keys, args).get(10, TimeUnit.SECONDS);
        long tookMs = (System.nanoTime() - start) / 1_000_000;
        List<?> codes = (List<?>) reply.get(0);
        long confirmedEverywhere =
                codes.stream().filter(c -> Long.valueOf(1).equals(c)).count();
        int present = 0;
        for (String key : keys) {
            if (members.store(2).exists(key)) {
                present++;
            }
        }
        System.out.println("[attack46] batch of " + LEASES + ": " + member2.calls.get() + " restore call(s), " + present
                + " put back, " + confirmedEverywhere + " answered 1, renew took " + tookMs + " ms");
        assertEquals(1, member2.calls.get(), "one restore call");
        assertEquals(LEASES, present, "all put back");
        assertTrue(
                confirmedEverywhere == LEASES,
                "answered 1 for " + confirmedEverywhere + " of " + LEASES
                        + " (the rest partially: the restore's answer came after the grace of "
                        + QuorumBackend.STRAGGLER_GRACE.toMillis() + " ms; renew took " + tookMs + " ms)");
    }
}
