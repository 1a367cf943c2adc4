package io.leasehold.lock.jedis;

import static io.leasehold.lock.testkit.driver.ClusterDriverTests.channelInSlot;
import static io.leasehold.lock.testkit.driver.ClusterDriverTests.emptySlot;
import static io.leasehold.lock.testkit.driver.ClusterDriverTests.moveSlot;
import static io.leasehold.lock.testkit.driver.ClusterDriverTests.shardSubscribers;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.leasehold.lock.testkit.driver.Eventually;
import io.leasehold.lock.testkit.driver.MessageRecorder;
import io.leasehold.lock.testkit.redis.ClusterRedis;
import io.leasehold.lock.testkit.redis.ClusterSlots;
import io.leasehold.lock.testkit.redis.RedisFixtures;
import io.leasehold.lock.testkit.redis.RedisNode;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Connection;
import redis.clients.jedis.RedisClusterClient;

/**
 * A shard channel whose slot moved is subscribed again on the slot's new master, even when the first
 * look at the cluster after the move still shows the old owner: the node that answered had not heard
 * of the move yet (nodes learn it one by one). Then subscribing on the old owner fails with
 * {@code MOVED}, and the router must look again rather than retry on what it knew.
 */
class JedisStaleSlotViewTest {

    @Test
    void shouldResubscribeOnTheNewMasterWhenTheFirstLookAfterTheMoveIsStale() throws Exception {
        ClusterRedis cluster = RedisFixtures.sharedCluster();
        cluster.restoreAll();
        String channel = channelInSlot(emptySlot(cluster, 42));
        int slot = ClusterSlots.slot(channel);
        RedisNode source = cluster.nodeForSlot(slot);
        RedisNode target = cluster.masters().stream()
                .filter(node -> node != source)
                .findFirst()
                .orElseThrow();
        MessageRecorder recorder = new MessageRecorder();
        try (RedisClusterClient client = JedisTestClients.clusterClient(cluster);
                JedisLockBackend backend =
                        JedisLockBackend.checked(new StaleFirstRefresh(JedisTopology.of(client)), 1)) {
            backend.subscribe(channel, recorder).get(10, TimeUnit.SECONDS);
            try {
                moveSlot(cluster, slot, source, target);

                assertEquals(
                        channel,
                        recorder.resubscribed.poll(20, TimeUnit.SECONDS),
                        "resubscribed after the move, though the first refresh after it was stale");
                Eventually.until("the new master has the subscription", () -> shardSubscribers(target, channel) == 1);
                target.command("SPUBLISH", channel, "moved");
                assertEquals("moved", recorder.messages.poll(10, TimeUnit.SECONDS));
            } finally {
                moveSlot(cluster, slot, target, source);
                cluster.restoreAll();
            }
        }
    }

    /** A cluster topology whose first refresh learns nothing, as when the node asked had not heard of the move. */
    private static final class StaleFirstRefresh implements JedisTopology {
        private final JedisTopology cluster;
        private final AtomicInteger refreshes = new AtomicInteger();

        StaleFirstRefresh(JedisTopology cluster) {
            this.cluster = cluster;
        }

        @Override
        public io.leasehold.lock.spi.Deployment deployment() {
            return cluster.deployment();
        }

        @Override
        public Connection connectionFor(String channel) {
            return cluster.connectionFor(channel);
        }

        @Override
        public String nodeOf(String channel) {
            return cluster.nodeOf(channel);
        }

        @Override
        public int poolMaxTotal() {
            return cluster.poolMaxTotal();
        }

        @Override
        public int slot(String key) {
            return cluster.slot(key);
        }

        @Override
        public void refresh() {
            if (refreshes.incrementAndGet() > 1) {
                cluster.refresh();
            }
        }
    }
}
