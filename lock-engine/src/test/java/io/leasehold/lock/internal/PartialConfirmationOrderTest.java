package io.leasehold.lock.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LeaseState;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.inmemory.InMemoryLockBackend;
import io.leasehold.lock.inmemory.ManualClock;
import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.spi.ScriptNames;
import io.leasehold.lock.testkit.ForwardingLockBackend;
import io.leasehold.lock.testkit.driver.Eventually;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A lease on a backend that confirms partially is {@code UNCERTAIN} exactly while the confirmation
 * in force, that of its highest-numbered TTL command Redis confirmed, is partial: whatever order the
 * replies of its renewals and extends come in, and whether an earlier one was refused as superseded.
 * Each command or reply is held at a gate and let go by the test, on a clock that stands still.
 */
class PartialConfirmationOrderTest {

    private static final String NAME = "orders:42";
    private static final Duration LEASE = Duration.ofSeconds(30);

    private ManualClock clock;
    private InMemoryLockBackend redis;
    private ComposedGrantsBackend composed;
    private Gate gate;
    private LockClient client;

    @BeforeEach
    void start() {
        clock = new ManualClock();
        redis = InMemoryLockBackend.withClock(clock);
        composed = new ComposedGrantsBackend(redis.newNode(), true);
        gate = new Gate(composed);
        client = LockClient.builder(gate).ticker(clock).build();
    }

    @AfterEach
    void stop() {
        client.close();
        redis.close();
    }

    private Lease acquire(boolean autoRenew) {
        return client.lock(
                        NAME,
                        LockOptions.builder()
                                .leaseTime(LEASE)
                                .autoRenew(autoRenew)
                                .build())
                .acquire(Duration.ZERO);
    }

    /** Sends the lease's first renewal, which the gate holds (before it runs, or its reply). */
    private void renewalHeld(boolean beforeItRuns) {
        gate.holdNext(ScriptNames.RENEW, beforeItRuns);
        clock.advance(LEASE.dividedBy(3));
        Eventually.until("the renewal held at the gate", gate::holding);
    }

    @Test
    void shouldStayUncertainWhenAnEarlierExtendIsSupersededByAPartiallyConfirmedOne() throws Exception {
        Lease lease = acquire(false);
        composed.confirmPartially(true);
        gate.holdNext(ScriptNames.EXTEND, true);
        CompletableFuture<Void> first = lease.extendAsync(Duration.ofSeconds(60));
        Eventually.until("the first extend held before it runs", gate::holding);

        lease.extend(Duration.ofSeconds(90)); // numbered after the first, runs first: confirmed partially
        assertThat(lease.state()).isEqualTo(LeaseState.UNCERTAIN);
        gate.letGo(); // the first runs now, and is refused as superseded
        first.get(10, TimeUnit.SECONDS);

        assertThat(lease.state()).as("the TTL in force was confirmed partially").isEqualTo(LeaseState.UNCERTAIN);
    }

    @Test
    void shouldStayUncertainWhenAnEarlierRenewalIsSupersededByAPartiallyConfirmedExtend() {
        Lease lease = acquire(true);
        composed.confirmPartially(true);
        renewalHeld(true);

        lease.extend(Duration.ofSeconds(60)); // confirmed partially
        gate.letGo(); // the renewal runs now: superseded

        assertThat(lease.state()).as("the TTL in force was confirmed partially").isEqualTo(LeaseState.UNCERTAIN);
    }

    @Test
    void shouldNotLetALateFullReplyOfAnEarlierRenewalHideALaterPartialExtend() {
        Lease lease = acquire(true);
        renewalHeld(false); // it runs, confirmed everywhere; its reply waits
        composed.confirmPartially(true);

        lease.extend(Duration.ofSeconds(60)); // numbered after it: confirmed partially
        gate.letGo(); // the renewal's late reply: 1

        assertThat(lease.state())
                .as("the later, partial confirmation is in force")
                .isEqualTo(LeaseState.UNCERTAIN);
    }

    @Test
    void shouldNotLetALatePartialReplyOfAnEarlierRenewalMakeAFullyConfirmedLeaseUncertain() {
        Lease lease = acquire(true);
        composed.confirmPartially(true);
        renewalHeld(false); // it runs, confirmed partially; its reply waits
        composed.confirmPartially(false);

        lease.extend(Duration.ofSeconds(60)); // numbered after it: confirmed everywhere
        assertThat(lease.state()).isEqualTo(LeaseState.HELD);
        gate.letGo(); // the renewal's late reply: 3

        assertThat(lease.state()).as("the later, full confirmation is in force").isEqualTo(LeaseState.HELD);
    }

    /**
     * Holds the next call of one script at the gate, before it runs or (once run) its reply, until
     * {@link #letGo}, which runs it (or hands its reply on) on the test's thread and returns once the
     * engine has acted on the reply: the engine handles a reply in the thread that completes it.
     */
    private static final class Gate extends ForwardingLockBackend {
        private final AtomicReference<Runnable> held = new AtomicReference<>();
        private volatile String script;
        private volatile boolean beforeItRuns;

        Gate(LockBackend delegate) {
            super(delegate);
        }

        void holdNext(String scriptName, boolean beforeRunning) {
            beforeItRuns = beforeRunning;
            script = scriptName;
        }

        boolean holding() {
            return held.get() != null;
        }

        void letGo() {
            held.getAndSet(null).run();
        }

        @Override
        public CompletableFuture<Object> eval(LuaScript lua, List<String> keys, List<String> args) {
            if (!lua.name().equals(script)) {
                return super.eval(lua, keys, args);
            }
            script = null;
            CompletableFuture<Object> reply = new CompletableFuture<>();
            CompletableFuture<Object> ran = beforeItRuns ? null : super.eval(lua, keys, args);
            held.set(() -> {
                Object answer = (ran != null ? ran : super.eval(lua, keys, args)).join();
                reply.complete(answer); // the engine's handlers run here, before letGo returns
            });
            return reply;
        }
    }
}
