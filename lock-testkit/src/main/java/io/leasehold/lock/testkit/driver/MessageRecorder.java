package io.leasehold.lock.testkit.driver;

import io.leasehold.lock.spi.MessageListener;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

/** Records what a subscription delivers: messages and resubscription notices. This class is threadsafe. */
public final class MessageRecorder implements MessageListener {

    /** Messages in the order delivered. */
    public final BlockingQueue<String> messages = new LinkedBlockingQueue<>();
    /** Channels whose {@link #onResubscribed} was called, in order. */
    public final BlockingQueue<String> resubscribed = new LinkedBlockingQueue<>();

    @Override
    public void onMessage(String channel, String message) {
        messages.add(message);
    }

    @Override
    public void onResubscribed(String channel) {
        resubscribed.add(channel);
    }
}
