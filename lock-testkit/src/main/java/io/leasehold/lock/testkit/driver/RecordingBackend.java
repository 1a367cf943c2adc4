package io.leasehold.lock.testkit.driver;

import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.testkit.ForwardingLockBackend;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

/** Forwards everything and records the keys of every call of one script, to check how the engine batches. This class is threadsafe. */
public final class RecordingBackend extends ForwardingLockBackend {

    private final String scriptName;
    /** The keys of every call of the script, in call order. */
    public final List<List<String>> calls = new CopyOnWriteArrayList<>();

    public RecordingBackend(LockBackend delegate, String scriptName) {
        super(delegate);
        this.scriptName = scriptName;
    }

    @Override
    public CompletableFuture<Object> eval(LuaScript script, List<String> keys, List<String> args) {
        if (script.name().equals(scriptName)) {
            calls.add(List.copyOf(keys));
        }
        return super.eval(script, keys, args);
    }
}
