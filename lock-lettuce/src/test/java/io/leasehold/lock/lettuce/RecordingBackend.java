package io.leasehold.lock.lettuce;

import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.spi.MessageListener;
import io.leasehold.lock.spi.Subscription;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

/** Forwards everything and records the keys of every call of one script, to check how the engine batches. */
final class RecordingBackend implements LockBackend {

    private final LockBackend delegate;
    private final String scriptName;
    final List<List<String>> calls = new CopyOnWriteArrayList<>();

    RecordingBackend(LockBackend delegate, String scriptName) {
        this.delegate = delegate;
        this.scriptName = scriptName;
    }

    @Override
    public CompletableFuture<Object> eval(LuaScript script, List<String> keys, List<String> args) {
        if (script.name().equals(scriptName)) {
            calls.add(List.copyOf(keys));
        }
        return delegate.eval(script, keys, args);
    }

    @Override
    public CompletableFuture<Subscription> subscribe(String channel, MessageListener listener) {
        return delegate.subscribe(channel, listener);
    }

    @Override
    public boolean shardedPubSub() {
        return delegate.shardedPubSub();
    }

    @Override
    public int slot(String key) {
        return delegate.slot(key);
    }

    @Override
    public void close() {
        delegate.close();
    }
}
