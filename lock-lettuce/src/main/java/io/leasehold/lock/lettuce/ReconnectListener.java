package io.leasehold.lock.lettuce;

import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisConnectionStateListener;
import java.net.SocketAddress;
import java.util.function.Consumer;

/**
 * Hears every connection of the user's client come up (Lettuce offers no per-connection hook) and
 * passes it on; the backend keeps only its own pub/sub connections. Registered on the client while
 * the backend is open and removed by {@link LettuceLockBackend#close()}.
 *
 * <p>Called on Netty's event loop, before Lettuce's own resubscribe commands are written: commands
 * written from here are queued behind them and sent once the connection is active.
 */
final class ReconnectListener implements RedisConnectionStateListener {

    private final Consumer<RedisChannelHandler<?, ?>> onConnected;

    ReconnectListener(Consumer<RedisChannelHandler<?, ?>> onConnected) {
        this.onConnected = onConnected;
    }

    @Override
    public void onRedisConnected(RedisChannelHandler<?, ?> connection, SocketAddress socketAddress) {
        onConnected.accept(connection);
    }
}
