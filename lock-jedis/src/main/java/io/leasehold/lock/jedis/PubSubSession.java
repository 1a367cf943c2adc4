package io.leasehold.lock.jedis;

import redis.clients.jedis.Connection;
import redis.clients.jedis.JedisPubSub;
import redis.clients.jedis.JedisShardedPubSub;

/**
 * One subscriber session on one connection, plain ({@code SUBSCRIBE}) or sharded ({@code SSUBSCRIBE}),
 * forwarding Jedis's callbacks to its {@link SubscriberLoop}. {@link #proceed} blocks the loop thread,
 * reading, until the last channel is unsubscribed or the connection fails; the other methods write a
 * command and return (the loop calls them under its monitor, once the session is ready).
 */
interface PubSubSession {

    /** Subscribes {@code channels} on {@code connection} and reads until the session ends. */
    void run(Connection connection, String[] channels);

    /** Sends a subscribe for {@code channel}. */
    void add(String channel);

    /** Sends an unsubscribe for {@code channel}. */
    void remove(String channel);

    /** {@code SUBSCRIBE}, for servers before Redis 7. */
    final class Plain extends JedisPubSub implements PubSubSession {
        private final SubscriberLoop loop;

        Plain(SubscriberLoop loop) {
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
    final class Sharded extends JedisShardedPubSub implements PubSubSession {
        private final SubscriberLoop loop;

        Sharded(SubscriberLoop loop) {
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
