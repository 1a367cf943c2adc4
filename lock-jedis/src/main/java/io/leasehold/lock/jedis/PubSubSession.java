package io.leasehold.lock.jedis;

import redis.clients.jedis.Connection;
import redis.clients.jedis.JedisPubSub;
import redis.clients.jedis.JedisShardedPubSub;

/**
 * A {@link BlockingSubscriber.Session} on a Jedis connection, plain ({@code SUBSCRIBE}) or sharded
 * ({@code SSUBSCRIBE}), forwarding Jedis's callbacks to its subscriber. {@code run} is Jedis's
 * {@code proceed}, which reads until the last channel is unsubscribed or the connection fails.
 */
final class PubSubSession {

    private PubSubSession() {}

    /** {@code SUBSCRIBE}, for servers before Redis 7. */
    static final class Plain extends JedisPubSub implements BlockingSubscriber.Session<Connection> {
        private final BlockingSubscriber<Connection> loop;

        Plain(BlockingSubscriber<Connection> loop) {
            this.loop = loop;
        }

        @Override
        public void run(Connection connection, String[] channels) {
            proceed(connection, channels);
        }

        @Override
        public void add(String channel) {
            subscribe(new String[] {channel});
        }

        @Override
        public void remove(String channel) {
            unsubscribe(new String[] {channel});
        }

        @Override
        public void onSubscribe(String channel, int subscribedChannels) {
            loop.onSubscribed(channel);
        }

        @Override
        public void onUnsubscribe(String channel, int subscribedChannels) {
            loop.onUnsubscribed(channel);
        }

        @Override
        public void onMessage(String channel, String message) {
            loop.onMessage(channel, message);
        }
    }

    /** {@code SSUBSCRIBE} (Redis 7+): in a cluster, on the node that serves the channel's slot. */
    static final class Sharded extends JedisShardedPubSub implements BlockingSubscriber.Session<Connection> {
        private final BlockingSubscriber<Connection> loop;

        Sharded(BlockingSubscriber<Connection> loop) {
            this.loop = loop;
        }

        @Override
        public void run(Connection connection, String[] channels) {
            proceed(connection, channels);
        }

        @Override
        public void add(String channel) {
            ssubscribe(new String[] {channel});
        }

        @Override
        public void remove(String channel) {
            sunsubscribe(new String[] {channel});
        }

        @Override
        public void onSSubscribe(String channel, int subscribedChannels) {
            loop.onSubscribed(channel);
        }

        @Override
        public void onSUnsubscribe(String channel, int subscribedChannels) {
            loop.onUnsubscribed(channel);
        }

        @Override
        public void onSMessage(String channel, String message) {
            loop.onMessage(channel, message);
        }
    }
}
