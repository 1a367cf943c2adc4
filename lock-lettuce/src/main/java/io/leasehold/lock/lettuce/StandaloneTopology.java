package io.leasehold.lock.lettuce;

import io.leasehold.lock.spi.Deployment;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * A single server, possibly found through Sentinel ({@code redis-sentinel://} URIs): Lettuce then
 * asks the sentinels for the current master on every reconnect, so a failover needs nothing here.
 * Everything lives in slot 0.
 *
 * <p>This class is threadsafe.
 */
final class StandaloneTopology implements Topology {

    private final RedisClient client;
    private final @Nullable RedisURI uri;
    /** Connects on the client's own URI, which only Lettuce's blocking connect methods can use. */
    private final BlockingConnect blocking = new BlockingConnect();

    /** {@code uri} null means the client's own default URI. */
    StandaloneTopology(RedisClient client, @Nullable RedisURI uri) {
        this.client = client;
        this.uri = uri;
    }

    @Override
    public AbstractRedisClient client() {
        return client;
    }

    @Override
    public Deployment deployment() {
        if (uri == null) {
            return Deployment.UNKNOWN; // the client's own default URI, which Lettuce does not show
        }
        return uri.getSentinels().isEmpty() ? Deployment.STANDALONE : Deployment.SENTINEL;
    }

    @Override
    public CompletableFuture<CommandConnection> connectCommands() {
        CompletableFuture<StatefulRedisConnection<String, String>> connecting = uri != null
                ? client.connectAsync(StringCodec.UTF8, uri).toCompletableFuture()
                : blocking.onOwnThread(
                        "commands", () -> client.connect(StringCodec.UTF8), StatefulConnection::closeAsync);
        return connecting.thenApply(c -> new CommandConnection(c, c.async()));
    }

    @Override
    public CompletableFuture<StatefulRedisPubSubConnection<String, String>> connectPubSub() {
        return uri != null
                ? client.connectPubSubAsync(StringCodec.UTF8, uri).toCompletableFuture()
                : blocking.onOwnThread(
                        "pubsub", () -> client.connectPubSub(StringCodec.UTF8), StatefulConnection::closeAsync);
    }

    @Override
    public void abandonConnects() {
        blocking.abandonAll();
    }

    @Override
    public int slot(String key) {
        return 0;
    }

    @Override
    public boolean carriesSubscriptions(
            RedisChannelHandler<?, ?> handler, StatefulRedisPubSubConnection<String, String> pubSub) {
        return handler == pubSub;
    }

    @Override
    public void subscribed(String channel, StatefulRedisPubSubConnection<String, String> pubSub) {}

    @Override
    public void unsubscribed(String channel) {}

    @Override
    public AutoCloseable watchMoves(StatefulRedisPubSubConnection<String, String> pubSub, Consumer<Set<String>> moved) {
        return () -> {};
    }

    @Override
    public String toString() {
        return "standalone";
    }
}
