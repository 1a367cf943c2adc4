package io.leasehold.lock.lettuce;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.spi.LockKeys;
import io.leasehold.lock.spi.MessageListener;
import io.leasehold.lock.spi.Subscription;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Release notifications over (sharded) pub/sub on a standalone server, and what happens when the connection drops. */
class LettucePubSubTest extends StandaloneClientTest {

    private LettuceLockBackend backend;

    @BeforeEach
    void createBackend() {
        backend = LettuceLockBackend.create(client);
    }

    @AfterEach
    void closeBackend() {
        backend.close();
    }

    @Test
    void shouldUseShardedPubSubOnRedis7() throws Exception {
        assertThat(backend.shardedPubSub().get(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void shouldDeliverAMessagePublishedOnceTheSubscriptionIsActive() throws Exception {
        String channel = channel();
        Recorder recorder = new Recorder();
        backend.subscribe(channel, recorder).get(10, TimeUnit.SECONDS);

        redis.server().command("SPUBLISH", channel, "released");

        assertThat(recorder.messages.poll(10, TimeUnit.SECONDS)).isEqualTo("released");
    }

    @Test
    void shouldShareOneServerSubscriptionAmongTheListenersOfAChannel() throws Exception {
        String channel = channel();
        Recorder first = new Recorder();
        Recorder second = new Recorder();
        backend.subscribe(channel, first).get(10, TimeUnit.SECONDS);
        backend.subscribe(channel, second).get(10, TimeUnit.SECONDS);

        assertThat(subscribers(channel)).isEqualTo(1);
        redis.server().command("SPUBLISH", channel, "released");
        assertThat(first.messages.poll(10, TimeUnit.SECONDS)).isEqualTo("released");
        assertThat(second.messages.poll(10, TimeUnit.SECONDS)).isEqualTo("released");
    }

    @Test
    void shouldStopDeliveringToAListenerThatUnsubscribedAndDropTheChannelWithTheLastOne() throws Exception {
        String channel = channel();
        Recorder leaving = new Recorder();
        Recorder staying = new Recorder();
        Subscription leavingSubscription = backend.subscribe(channel, leaving).get(10, TimeUnit.SECONDS);
        Subscription stayingSubscription = backend.subscribe(channel, staying).get(10, TimeUnit.SECONDS);

        leavingSubscription.unsubscribe().get(10, TimeUnit.SECONDS);
        leavingSubscription.unsubscribe().get(10, TimeUnit.SECONDS); // idempotent
        redis.server().command("SPUBLISH", channel, "released");

        assertThat(staying.messages.poll(10, TimeUnit.SECONDS)).isEqualTo("released");
        assertThat(leaving.messages).as("listeners are called in order; the one that left got nothing").isEmpty();
        assertThat(subscribers(channel)).isEqualTo(1);

        stayingSubscription.unsubscribe().get(10, TimeUnit.SECONDS);
        assertThat(subscribers(channel)).isZero();
    }

    @Test
    void shouldResubscribeAndTellListenersAfterThePubSubConnectionIsKilled() throws Exception {
        String channel = channel();
        Recorder recorder = new Recorder();
        backend.subscribe(channel, recorder).get(10, TimeUnit.SECONDS);

        redis.server().command("CLIENT", "KILL", "TYPE", "pubsub");

        assertThat(recorder.resubscribed.get(20, TimeUnit.SECONDS)).isEqualTo(channel);
        assertThat(subscribers(channel)).isEqualTo(1);
        redis.server().command("SPUBLISH", channel, "after reconnect");
        assertThat(recorder.messages.poll(10, TimeUnit.SECONDS)).isEqualTo("after reconnect");
    }

    @Test
    void shouldWakeAWaiterByTheReleaseWhenItsPubSubConnectionWasKilledWhileWaiting() throws Exception {
        String name = "pubsub-kill:" + UUID.randomUUID();
        String channel = LockKeys.releaseChannel(LockClient.Builder.DEFAULT_KEY_PREFIX, name);
        LockOptions longLease = LockOptions.builder().leaseTime(Duration.ofSeconds(60)).autoRenew(false).build();
        try (LockClient holder = LockClient.create(LettuceLockBackend.create(client));
                LockClient waiter = LockClient.create(backend)) {
            Lease held = holder.lock(name, longLease).acquire(Duration.ofSeconds(5));
            CompletableFuture<Lease> waiting = waiter.lock(name).acquireAsync(Duration.ofSeconds(50));
            Eventually.until("the waiter is subscribed", () -> subscribers(channel) == 1);

            redis.server().command("CLIENT", "KILL", "TYPE", "pubsub");
            Eventually.until("the waiter is subscribed again", () -> subscribers(channel) == 1);
            long releasedAt = System.nanoTime();
            assertThat(held.release()).isTrue();

            // Woken by the release message: far sooner than the 60 s lease the TTL fallback would wait for.
            Lease taken = waiting.get(20, TimeUnit.SECONDS);
            assertThat(Duration.ofNanos(System.nanoTime() - releasedAt)).isLessThan(Duration.ofSeconds(20));
            assertThat(taken.fencingToken()).isGreaterThan(held.fencingToken());
            taken.release();
        }
    }

    private static String channel() {
        return "pubsub-test:{" + UUID.randomUUID() + "}:released";
    }

    private static long subscribers(String channel) {
        List<?> reply = (List<?>) redis.server().command("PUBSUB", "SHARDNUMSUB", channel);
        return (Long) reply.get(1);
    }

    /** Records what a channel delivers. */
    private static final class Recorder implements MessageListener {
        final BlockingQueue<String> messages = new LinkedBlockingQueue<>();
        final CompletableFuture<String> resubscribed = new CompletableFuture<>();

        @Override
        public void onMessage(String channel, String message) {
            messages.add(message);
        }

        @Override
        public void onResubscribed(String channel) {
            resubscribed.complete(channel);
        }
    }
}
