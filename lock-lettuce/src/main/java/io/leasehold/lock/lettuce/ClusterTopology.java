package io.leasehold.lock.lettuce;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.event.ClusterTopologyChangedEvent;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.pubsub.StatefulRedisClusterPubSubConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.util.Collections;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import reactor.core.Disposable;

/**
 * A Redis Cluster. Scripts are routed by Lettuce to the master of their first key's slot. Sharded
 * subscriptions ({@code SSUBSCRIBE}) live on the node that owns the channel's slot: Lettuce's
 * cluster pub/sub connection routes them there over a per-node connection, which this class
 * remembers so that a reconnect of any of them can be noticed.
 *
 * <p>Two things Lettuce does not do for sharded channels are done by the backend with this class's
 * help: after a node connection reconnects, Lettuce resubscribes all of that node's shard channels
 * in one {@code SSUBSCRIBE}, which a cluster refuses with {@code CROSSSLOT} when they span slots,
 * so the backend resubscribes channel by channel; and after a failover or slot migration the
 * channel's slot has a new owner, so on every {@link ClusterTopologyChangedEvent} the channels whose
 * owner changed are reported as moved and subscribed again on the new owner. Topology refresh
 * itself is the user's client's business (Lettuce's adaptive refresh is on by default).
 *
 * <p>This class is threadsafe.
 */
final class ClusterTopology implements Topology {

    private final RedisClusterClient client;
    /** Channel → "host:port" of the node it was last subscribed on. */
    private final Map<String, String> ownerByChannel = new ConcurrentHashMap<>();
    /** Per-node pub/sub connections that carry our subscriptions (identity). */
    private final Set<Object> nodeConnections = Collections.newSetFromMap(new ConcurrentHashMap<>());

    private volatile boolean topologyLoaded;

    ClusterTopology(RedisClusterClient client) {
        this.client = client;
    }

    @Override
    public AbstractRedisClient client() {
        return client;
    }

    @Override
    public io.leasehold.lock.spi.Deployment deployment() {
        return io.leasehold.lock.spi.Deployment.CLUSTER;
    }

    @Override
    public CompletableFuture<CommandConnection> connectCommands() {
        return knownTopology()
                .thenCompose(ignored -> client.connectAsync(StringCodec.UTF8))
                .thenApply((StatefulRedisClusterConnection<String, String> c) -> new CommandConnection(c, c.async()));
    }

    @Override
    public CompletableFuture<StatefulRedisClusterPubSubConnection<String, String>> connectPubSub() {
        return knownTopology().thenCompose(ignored -> client.connectPubSubAsync(StringCodec.UTF8));
    }

    /**
     * Lettuce's asynchronous cluster connects fail until the client has loaded the topology, which
     * only the blocking {@code getPartitions()} or {@code connect()} do by themselves; an
     * asynchronous refresh loads it without blocking (a reload if the application already had it).
     */
    private CompletableFuture<Void> knownTopology() {
        if (topologyLoaded) {
            return CompletableFuture.completedFuture(null);
        }
        return client.refreshPartitionsAsync().toCompletableFuture().thenRun(() -> topologyLoaded = true);
    }

    @Override
    public void abandonConnects() {
        // Nothing to do: a cluster connects asynchronously, on no thread of ours.
    }

    @Override
    public int slot(String key) {
        return SlotHash.getSlot(key);
    }

    @Override
    public boolean carriesSubscriptions(
            RedisChannelHandler<?, ?> handler, StatefulRedisPubSubConnection<String, String> pubSub) {
        return handler == pubSub || nodeConnections.contains(handler);
    }

    @Override
    public void subscribed(String channel, StatefulRedisPubSubConnection<String, String> pubSub) {
        StatefulRedisClusterPubSubConnection<String, String> cluster =
                (StatefulRedisClusterPubSubConnection<String, String>) pubSub;
        RedisURI owner = ownerOf(channel, cluster);
        if (owner == null) {
            return;
        }
        ownerByChannel.put(channel, key(owner));
        // The same (WRITE, host, port) key Lettuce's slot routing used: this returns the cached connection.
        cluster.getConnectionAsync(owner.getHost(), owner.getPort()).thenAccept(nodeConnections::add);
    }

    @Override
    public void unsubscribed(String channel) {
        ownerByChannel.remove(channel);
    }

    @Override
    public AutoCloseable watchMoves(StatefulRedisPubSubConnection<String, String> pubSub, Consumer<Set<String>> moved) {
        StatefulRedisClusterPubSubConnection<String, String> cluster =
                (StatefulRedisClusterPubSubConnection<String, String>) pubSub;
        // The event bus may be shared with other clients; a spurious event only costs a comparison.
        Disposable watch = client.getResources()
                .eventBus()
                .get()
                .filter(ClusterTopologyChangedEvent.class::isInstance)
                .subscribe(event -> {
                    Set<String> changed = movedChannels(cluster);
                    if (!changed.isEmpty()) {
                        moved.accept(changed);
                    }
                });
        return watch::dispose;
    }

    private Set<String> movedChannels(StatefulRedisClusterPubSubConnection<String, String> cluster) {
        Set<String> moved = new HashSet<>();
        ownerByChannel.forEach((channel, node) -> {
            RedisURI owner = ownerOf(channel, cluster);
            if (owner != null && !key(owner).equals(node)) {
                moved.add(channel);
            }
        });
        return moved;
    }

    private static @Nullable RedisURI ownerOf(
            String channel, StatefulRedisClusterPubSubConnection<String, String> cluster) {
        RedisClusterNode master = cluster.getPartitions().getMasterBySlot(SlotHash.getSlot(channel));
        return master == null ? null : master.getUri();
    }

    private static String key(RedisURI uri) {
        return uri.getHost() + ":" + uri.getPort();
    }

    @Override
    public String toString() {
        return "cluster";
    }
}
