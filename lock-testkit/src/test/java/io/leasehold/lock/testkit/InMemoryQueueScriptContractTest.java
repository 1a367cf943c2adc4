package io.leasehold.lock.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.leasehold.lock.inmemory.ManualClock;
import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.spi.LockKeys;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The wait queue's script contract on the in-memory emulation, on a hand-moved clock; also what
 * the scripts publish, which the raw RESP backend of the real-Redis form cannot hear.
 */
class InMemoryQueueScriptContractTest extends QueueScriptContractTestBase {

    private final ManualClock clock = new ManualClock();

    @Override
    protected LockBackendFixture createFixture() {
        return new InMemoryFixture(clock);
    }

    @Override
    protected long pttl(String key) {
        return ((InMemoryFixture) fixture).backend().pttl(key);
    }

    @Override
    protected void passTime(Duration duration) {
        clock.advance(duration);
    }

    @Test
    void shouldNameTheGrantedWaiterOnTheChannelAndPublishReleasedWhenNobodyWaits() throws Exception {
        RecordingListener listener = new RecordingListener();
        String channel = LockKeys.releaseChannel(ScriptCaller.PREFIX, name);
        try (LockBackend subscriber = fixture.newBackend()) {
            subscriber.subscribe(channel, listener).get();
            take("alice");
            waitInQueue("bob");

            release("alice");
            long granted = holderToken();
            take("bob");
            release("bob");

            assertEquals(channel + " granted bob " + granted, listener.next(), "the grant names its owner and token");
            assertEquals(channel + " released", listener.next());
            assertEquals(List.of(), List.copyOf(listener.messages), "nothing else");
        }
    }
}
