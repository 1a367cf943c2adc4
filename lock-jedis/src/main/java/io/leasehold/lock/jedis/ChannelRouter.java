package io.leasehold.lock.jedis;

import io.leasehold.lock.spi.support.PubSubChannels;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import redis.clients.jedis.Connection;

/**
 * How {@link PubSubChannels} reaches Redis through Jedis: each channel goes to the
 * {@link BlockingSubscriber} of the node that serves it (one loop outside a cluster), on one router
 * thread, so that the subscribes and unsubscribes of one channel reach its loop in the order they
 * were made, and so that finding a channel's node (which borrows a pooled connection) never blocks
 * the engine.
 *
 * <p>This class is threadsafe.
 */
final class ChannelRouter implements PubSubChannels.Wire, BlockingSubscriber.Events {

    /** Reads the server's pub/sub kind, blocking; called on the router thread before the first loop. */
    interface KindProbe {
        boolean sharded(String channel);
    }

    private final JedisTopology topology;
    private final KindProbe probe;
    private final ScheduledExecutorService router;
    private final String loopThreadPrefix;
    private volatile PubSubChannels channels;
    private final Map<String, BlockingSubscriber<Connection>> loopsByNode =
            new ConcurrentHashMap<>(); // written on the router thread
    private final Map<String, BlockingSubscriber<Connection>> loopByChannel = new ConcurrentHashMap<>();
    private int loopsMade; // router thread only
    private volatile boolean closed;

    ChannelRouter(JedisTopology topology, KindProbe probe, ScheduledExecutorService router, String loopThreadPrefix) {
        this.topology = topology;
        this.loopThreadPrefix = loopThreadPrefix;
        this.probe = probe;
        this.router = router;
    }

    /** The registry whose channels this router carries; set once, before the first subscribe. */
    void attach(PubSubChannels registry) {
        this.channels = registry;
    }

    @Override
    public CompletableFuture<Void> subscribe(String channel) {
        return onRouter(() -> {
            boolean sharded = probe.sharded(channel);
            String node = topology.nodeOf(channel);
            BlockingSubscriber<Connection> loop = loopsByNode.get(node);
            if (loop == null) {
                if (closed) {
                    return CompletableFuture.failedFuture(new IllegalStateException("JedisLockBackend is closed"));
                }
                loop = new BlockingSubscriber<>(
                        node,
                        loopThreadPrefix + ++loopsMade,
                        new JedisConnector(topology, channel),
                        sharded ? PubSubSession.Sharded::new : PubSubSession.Plain::new,
                        this);
                loopsByNode.put(node, loop);
                if (closed) {
                    loop.close(); // close() ran while this one was being made: it saw the map without it
                }
            }
            BlockingSubscriber<Connection> previous = loopByChannel.put(channel, loop);
            if (previous != null && previous != loop) {
                previous.unsubscribe(channel); // the channel moved to another node
            }
            return loop.subscribe(channel).whenComplete((subscribed, failure) -> {
                if (failure != null) {
                    // Perhaps the node no longer serves the channel's slot (MOVED): the view this subscribe
                    // followed may be stale, as when the refresh after a slot moved asked a node that had not
                    // heard of it yet. Look again before the registry's retry, which is queued after this.
                    execute(topology::refresh);
                }
            });
        });
    }

    @Override
    public CompletableFuture<Void> unsubscribe(String channel) {
        return onRouter(() -> {
            BlockingSubscriber<Connection> loop = loopByChannel.remove(channel);
            return loop == null ? CompletableFuture.completedFuture(null) : loop.unsubscribe(channel);
        });
    }

    @Override
    public void schedule(Runnable task, Duration delay) {
        try {
            router.schedule(task, delay.toMillis(), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException closed) {
            // the backend closed: nothing left to resubscribe
        }
    }

    // ---- events of the loops, on their threads ---------------------------------------------------

    @Override
    public void message(String channel, String message) {
        channels.dispatch(channel, message);
    }

    @Override
    public void droppedByServer(String channel) {
        loopByChannel.remove(channel);
        execute(() -> {
            topology.refresh(); // the slot moved: learn where it lives now
            channels.unsubscribedByServer(channel);
        });
    }

    @Override
    public void lost(Set<String> lostChannels, Throwable cause) {
        lostChannels.forEach(loopByChannel::remove);
        execute(() -> {
            topology.refresh();
            channels.resubscribe(lostChannels);
        });
    }

    /**
     * Stops the router (queued routing is moot: the registry has failed its subscriptions) and closes
     * every subscriber, also while the router is stuck in a routing borrow on a frozen node. Does not
     * wait for the subscribers' threads.
     */
    List<BlockingSubscriber<Connection>> close() {
        closed = true;
        router.shutdownNow();
        List<BlockingSubscriber<Connection>> loops = new ArrayList<>(loopsByNode.values());
        loops.forEach(BlockingSubscriber::close);
        return loops;
    }

    private void execute(Runnable task) {
        try {
            router.execute(() -> {
                try {
                    task.run();
                } catch (RuntimeException e) {
                    // a refresh or resubscribe that fails is retried by the registry's back-off
                }
            });
        } catch (RejectedExecutionException closed) {
            // the backend closed
        }
    }

    private CompletableFuture<Void> onRouter(Supplier<CompletableFuture<Void>> work) {
        CompletableFuture<Void> result = new CompletableFuture<>();
        try {
            router.execute(() -> {
                try {
                    work.get().whenComplete((ignored, failure) -> {
                        if (failure == null) {
                            result.complete(null);
                        } else {
                            result.completeExceptionally(failure);
                        }
                    });
                } catch (RuntimeException e) {
                    result.completeExceptionally(e);
                }
            });
        } catch (RejectedExecutionException e) {
            result.completeExceptionally(new IllegalStateException("JedisLockBackend is closed", e));
        }
        return result;
    }
}
