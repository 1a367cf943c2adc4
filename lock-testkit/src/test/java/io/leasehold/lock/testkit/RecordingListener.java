package io.leasehold.lock.testkit;

import io.leasehold.lock.spi.MessageListener;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** Records what a subscription receives, as "channel message" strings, and on which thread. */
final class RecordingListener implements MessageListener {

    final BlockingQueue<String> messages = new LinkedBlockingQueue<>();
    final BlockingQueue<String> resubscribed = new LinkedBlockingQueue<>();
    final BlockingQueue<Thread> threads = new LinkedBlockingQueue<>();

    @Override
    public void onMessage(String channel, String message) {
        threads.add(Thread.currentThread());
        messages.add(channel + " " + message);
    }

    @Override
    public void onResubscribed(String channel) {
        threads.add(Thread.currentThread());
        resubscribed.add(channel);
    }

    /** The next message, waiting up to the test timeout; fails when none arrives. */
    String next() {
        return poll(messages);
    }

    String nextResubscribed() {
        return poll(resubscribed);
    }

    private static String poll(BlockingQueue<String> queue) {
        try {
            String value = queue.poll(ScriptCaller.TIMEOUT_SECONDS, TimeUnit.SECONDS);
            if (value == null) {
                throw new AssertionError("nothing received within " + ScriptCaller.TIMEOUT_SECONDS + " s");
            }
            return value;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }
}
