package io.leasehold.lock.internal;

import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.spi.MessageListener;
import io.leasehold.lock.spi.ScriptNames;
import io.leasehold.lock.spi.Subscription;
import io.leasehold.lock.testkit.ForwardingLockBackend;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A decorator that taps the engine's subscriptions and attempts: it can drop every release message
 * (as a connection that loses them without a resubscription would), hand the engine a message of
 * the test's making, and tell the owners its acquire attempts and releases carried. This class is threadsafe.
 */
final class MessageTapBackend extends ForwardingLockBackend {

    private final List<MessageListener> listeners = new CopyOnWriteArrayList<>();
    private final List<String> attemptOwners = new CopyOnWriteArrayList<>();
    private final List<String> releaseOwners = new CopyOnWriteArrayList<>();
    private volatile boolean dropping;

    MessageTapBackend(LockBackend delegate) {
        super(delegate);
    }

    /** From now on, drops (or delivers again) every message published to the engine's subscriptions. */
    void dropMessages(boolean on) {
        dropping = on;
    }

    /** Hands {@code message} to every subscription the engine made, as if it were published. */
    void inject(String channel, String message) {
        listeners.forEach(listener -> listener.onMessage(channel, message));
    }

    /** The owner (ARGV[1]) of each acquire attempt sent so far, in order. */
    List<String> attemptOwners() {
        return List.copyOf(attemptOwners);
    }

    /** The owner (ARGV[1]) of each release sent so far, in order. */
    List<String> releaseOwners() {
        return List.copyOf(releaseOwners);
    }

    @Override
    public CompletableFuture<Object> eval(LuaScript script, List<String> keys, List<String> args) {
        if (script.name().equals(ScriptNames.ACQUIRE)) {
            attemptOwners.add(args.get(0));
        } else if (script.name().equals(ScriptNames.RELEASE)) {
            releaseOwners.add(args.get(0));
        }
        return super.eval(script, keys, args);
    }

    @Override
    public CompletableFuture<Subscription> subscribe(String channel, MessageListener listener) {
        MessageListener tapped = new MessageListener() {
            @Override
            public void onMessage(String channel, String message) {
                if (!dropping) {
                    listener.onMessage(channel, message);
                }
            }

            @Override
            public void onResubscribed(String channel) {
                listener.onResubscribed(channel);
            }
        };
        listeners.add(listener);
        return super.subscribe(channel, tapped);
    }
}
