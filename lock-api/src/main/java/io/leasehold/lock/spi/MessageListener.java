package io.leasehold.lock.spi;

/**
 * Receives messages from a subscribed channel. Called on the driver's I/O thread: never block.
 */
@FunctionalInterface
public interface MessageListener {

    void onMessage(String channel, String message);

    /**
     * The backend re-established this subscription after a reconnect or failover. Messages
     * published meanwhile may have been missed, so waiters should retry now.
     */
    default void onResubscribed(String channel) {}
}
