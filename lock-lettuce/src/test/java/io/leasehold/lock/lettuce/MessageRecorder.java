package io.leasehold.lock.lettuce;

import io.leasehold.lock.spi.MessageListener;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

/** Records what a subscription delivers: messages and resubscription notices. */
final class MessageRecorder implements MessageListener {

    final BlockingQueue<String> messages = new LinkedBlockingQueue<>();
    final BlockingQueue<String> resubscribed = new LinkedBlockingQueue<>();

    @Override
    public void onMessage(String channel, String message) {
        messages.add(message);
    }

    @Override
    public void onResubscribed(String channel) {
        resubscribed.add(channel);
    }
}
