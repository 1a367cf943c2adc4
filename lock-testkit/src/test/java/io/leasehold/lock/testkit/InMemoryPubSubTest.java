package io.leasehold.lock.testkit;

import static io.leasehold.lock.testkit.ScriptCaller.await;
import static io.leasehold.lock.testkit.ScriptCaller.channel;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.spi.Subscription;
import org.junit.jupiter.api.Test;

/** Release messages: delivered in order, on the pub/sub thread, to active subscriptions only. */
class InMemoryPubSubTest extends InMemoryScriptTestBase {

    @Test
    void shouldDeliverOnThePubSubThreadNotOnTheCallersThread() throws InterruptedException {
        RecordingListener listener = new RecordingListener();
        await(redis.subscribe(channel("orders"), listener));

        scripts.acquire("orders", "owner-a", 30_000);
        scripts.release("orders", "owner-a");

        listener.next();
        Thread thread = listener.threads.take();
        assertEquals("leasehold-inmemory-pubsub", thread.getName());
        assertTrue(thread.isDaemon());
        assertNotSame(Thread.currentThread(), thread);
    }

    @Test
    void shouldBeActiveAsSoonAsSubscribeCompletes() {
        RecordingListener listener = new RecordingListener();

        Subscription subscription = await(redis.subscribe(channel("orders"), listener));
        scripts.forceRelease("orders");
        scripts.acquire("orders", "owner-a", 30_000);
        scripts.forceRelease("orders");

        assertEquals(channel("orders"), subscription.channel());
        assertEquals(channel("orders") + " released", listener.next());
        assertEquals(1, redis.subscriberCount(channel("orders")));
    }

    @Test
    void shouldDeliverMessagesInPublishOrder() {
        RecordingListener listener = new RecordingListener();
        for (String name : new String[] {"a", "b", "c"}) {
            await(redis.subscribe(channel(name), listener));
            scripts.acquire(name, "owner", 30_000);
        }

        scripts.release("b", "owner");
        scripts.release("c", "owner");
        scripts.release("a", "owner");

        assertEquals(channel("b") + " released", listener.next());
        assertEquals(channel("c") + " released", listener.next());
        assertEquals(channel("a") + " released", listener.next());
    }

    @Test
    void shouldStopDeliveringAfterUnsubscribe() {
        RecordingListener gone = new RecordingListener();
        RecordingListener staying = new RecordingListener();
        Subscription subscription = await(redis.subscribe(channel("orders"), gone));
        await(redis.subscribe(channel("orders"), staying));

        await(subscription.unsubscribe());
        await(subscription.unsubscribe());
        scripts.acquire("orders", "owner-a", 30_000);
        scripts.release("orders", "owner-a");

        assertEquals(channel("orders") + " released", staying.next());
        assertTrue(gone.messages.isEmpty(), "an ended subscription hears nothing");
        assertEquals(1, redis.subscriberCount(channel("orders")));
    }

    @Test
    void shouldKeepDeliveringWhenAListenerThrows() {
        RecordingListener listener = new RecordingListener();
        await(redis.subscribe(channel("orders"), (channel, message) -> {
            throw new IllegalStateException("a broken listener");
        }));
        await(redis.subscribe(channel("orders"), listener));

        scripts.acquire("orders", "owner-a", 30_000);
        scripts.release("orders", "owner-a");
        scripts.acquire("orders", "owner-a", 30_000);
        scripts.release("orders", "owner-a");

        assertEquals(channel("orders") + " released", listener.next());
        assertEquals(channel("orders") + " released", listener.next());
    }
}
