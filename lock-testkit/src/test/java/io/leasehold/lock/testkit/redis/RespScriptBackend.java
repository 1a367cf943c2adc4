package io.leasehold.lock.testkit.redis;

import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.spi.MessageListener;
import io.leasehold.lock.spi.Subscription;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A test-only stand-in for a driver: runs {@code EVAL} through the fixture's admin client on the
 * master owning the first key, on its own thread so that a paused server never blocks the caller.
 * It cannot subscribe.
 */
public final class RespScriptBackend implements LockBackend {

    final AtomicBoolean closed = new AtomicBoolean();
    private final RedisTopology topology;
    private final ExecutorService io = Executors.newCachedThreadPool(runnable -> {
        Thread thread = new Thread(runnable, "leasehold-test-resp-backend");
        thread.setDaemon(true);
        return thread;
    });

    public RespScriptBackend(RedisTopology topology) {
        this.topology = topology;
    }

    @Override
    public CompletableFuture<Object> eval(LuaScript script, List<String> keys, List<String> args) {
        List<String> command = new ArrayList<>(List.of("EVAL", script.source(), Integer.toString(keys.size())));
        command.addAll(keys);
        command.addAll(args);
        return CompletableFuture.supplyAsync(
                () -> topology.masterForKey(keys.get(0))
                        .command(Duration.ofSeconds(60), command.toArray(String[]::new)),
                io);
    }

    @Override
    public CompletableFuture<Subscription> subscribe(String channel, MessageListener listener) {
        return CompletableFuture.failedFuture(new UnsupportedOperationException("test backend cannot subscribe"));
    }

    @Override
    public CompletableFuture<Boolean> shardedPubSub() {
        return CompletableFuture.completedFuture(false);
    }

    @Override
    public void close() {
        closed.set(true);
        io.shutdownNow();
    }
}
