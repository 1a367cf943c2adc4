package io.leasehold.lock.lettuce;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.spi.LockKeys;
import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.spi.ScriptNames;
import io.leasehold.lock.testkit.redis.ClusterRedis;
import io.leasehold.lock.testkit.redis.RedisFixtures;
import io.leasehold.lock.testkit.redis.RedisNode;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Lettuce on a three-master Redis Cluster: keys and channels on their slot's node, renewals batched by slot. */
class LettuceClusterTest {

    private static final String PREFIX = LockClient.Builder.DEFAULT_KEY_PREFIX;

    private static ClusterRedis cluster;
    private static RedisClusterClient client;

    @BeforeAll
    static void start() {
        cluster = RedisFixtures.sharedCluster();
        cluster.restoreAll();
        client = LettuceTestClients.clusterClient(cluster);
    }

    @AfterAll
    static void stop() {
        LettuceTestClients.shutdown(client);
        cluster.flushAll();
    }

    @Test
    void shouldPlaceEachLockOnTheMasterOwningItsSlotAcrossAllMasters() {
        Set<RedisNode> owners = new HashSet<>();
        try (LockClient locks = LettuceLockBackend.lockClient(client)) {
            List<Lease> leases = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                String name = "spread:" + i + ":" + UUID.randomUUID();
                leases.add(locks.lock(name).acquire(Duration.ofSeconds(10)));
                String key = LockKeys.lockKey(PREFIX, name);
                RedisNode owner = cluster.masterForKey(key);
                assertThat(owner.command("EXISTS", key)).as("%s on the owner of slot %d", key, SlotHash.getSlot(key)).isEqualTo(1L);
                owners.add(owner);
            }
            assertThat(owners).as("30 random names cover every master").hasSameSizeAs(cluster.masters());
            leases.forEach(lease -> assertThat(lease.release()).isTrue());
        }
    }

    @Test
    void shouldRenewInBatchesThatEachStayWithinOneSlot() {
        // Three slots on three different masters, three lock names in each: one renew call per slot.
        Map<Integer, List<String>> namesBySlot = new LinkedHashMap<>();
        for (int node = 0; node < 3; node++) {
            int slot = 100 + node * (16384 / 3);
            namesBySlot.put(slot, namesInSlot(slot, 3));
        }
        assertThat(namesBySlot.keySet().stream().map(cluster::nodeForSlot).distinct()).hasSize(3);
        LockOptions shortLease = LockOptions.builder().leaseTime(Duration.ofMillis(900)).build();
        RecordingBackend recording = new RecordingBackend(LettuceLockBackend.create(client), ScriptNames.RENEW);
        try (LockClient locks = LockClient.create(recording)) {
            List<Lease> leases = new ArrayList<>();
            namesBySlot.values().forEach(names -> names.forEach(name -> leases.add(locks.lock(name, shortLease).acquire(Duration.ofSeconds(10)))));

            Eventually.until("every slot's three leases were renewed in one call", () -> namesBySlot.keySet().stream()
                    .allMatch(slot -> recording.calls.stream().anyMatch(keys -> keys.size() == 3 && slotsOf(keys).equals(Set.of(slot)))));
            Eventually.until("several renewal rounds passed", () -> recording.calls.size() >= 9);

            for (List<String> keys : recording.calls) {
                assertThat(slotsOf(keys)).as("slots of one renew call %s", keys).hasSize(1);
            }
            assertThat(leases).allMatch(Lease::isValid, "still valid after several lease times");
            leases.forEach(lease -> assertThat(lease.release()).isTrue());
        }
    }

    @Test
    void shouldResubscribeEveryChannelAfterEveryNodesPubSubConnectionIsKilled() throws Exception {
        // Two channels in different slots per master: Lettuce's own one-command resubscribe gets CROSSSLOT.
        Map<String, MessageRecorder> recorders = new LinkedHashMap<>();
        for (int node = 0; node < 3; node++) {
            for (int offset : new int[] {10, 20}) {
                recorders.put(channelInSlot(node * (16384 / 3) + offset), new MessageRecorder());
            }
        }
        try (LettuceLockBackend backend = LettuceLockBackend.create(client)) {
            assertThat(backend.shardedPubSub().get(10, TimeUnit.SECONDS)).isTrue();
            for (Map.Entry<String, MessageRecorder> entry : recorders.entrySet()) {
                backend.subscribe(entry.getKey(), entry.getValue()).get(10, TimeUnit.SECONDS);
            }

            for (RedisNode master : cluster.masters()) {
                master.command("CLIENT", "KILL", "TYPE", "pubsub");
            }

            for (Map.Entry<String, MessageRecorder> entry : recorders.entrySet()) {
                String channel = entry.getKey();
                assertThat(entry.getValue().resubscribed.poll(20, TimeUnit.SECONDS)).as("resubscribed %s", channel).isEqualTo(channel);
                RedisNode owner = cluster.masterForKey(channel);
                Eventually.until(channel + " is subscribed on its slot's master", () -> shardSubscribers(owner, channel) == 1);
                owner.command("SPUBLISH", channel, "after the kill");
                assertThat(entry.getValue().messages.poll(10, TimeUnit.SECONDS)).as("message on %s", channel).isEqualTo("after the kill");
            }
        }
    }

    @Test
    void shouldFollowAChannelToItsNewMasterWhenItsSlotMigrates() throws Exception {
        String channel = channelInSlot(42);
        int slot = SlotHash.getSlot(channel);
        RedisNode source = cluster.nodeForSlot(slot);
        RedisNode target = cluster.masters().stream().filter(node -> node != source).findFirst().orElseThrow();
        MessageRecorder recorder = new MessageRecorder();
        try (LettuceLockBackend backend = LettuceLockBackend.create(client)) {
            backend.subscribe(channel, recorder).get(10, TimeUnit.SECONDS);
            try {
                moveSlot(slot, source, target);

                assertThat(recorder.resubscribed.poll(30, TimeUnit.SECONDS)).as("resubscribed after the move").isEqualTo(channel);
                Eventually.until("the new master has the subscription", () -> shardSubscribers(target, channel) == 1);
                target.command("SPUBLISH", channel, "moved");
                assertThat(recorder.messages.poll(10, TimeUnit.SECONDS)).isEqualTo("moved");
            } finally {
                moveSlot(slot, target, source);
                cluster.restoreAll();
            }
        }
    }

    @Test
    void shouldLeaveTheUsersClusterClientAndConnectionsOpenWhenClosed() throws Exception {
        try (StatefulRedisClusterConnection<String, String> users = client.connect()) {
            LettuceLockBackend backend = LettuceLockBackend.create(client);
            backend.eval(LuaScript.of("echo", "return ARGV[1]"), List.of("close:{a}"), List.of("x")).get(10, TimeUnit.SECONDS);
            backend.subscribe(channelInSlot(7), (c, m) -> { }).get(10, TimeUnit.SECONDS);

            backend.close();

            assertThat(users.sync().set("close:{b}", "v")).isEqualTo("OK");
            try (StatefulRedisClusterConnection<String, String> fresh = client.connect()) {
                assertThat(fresh.sync().get("close:{b}")).isEqualTo("v");
            }
        }
    }

    /** Moves an empty slot between masters the way redis-cli does, telling every master the new owner. */
    private static void moveSlot(int slot, RedisNode from, RedisNode to) {
        String fromId = (String) from.command("CLUSTER", "MYID");
        String toId = (String) to.command("CLUSTER", "MYID");
        to.command("CLUSTER", "SETSLOT", Integer.toString(slot), "IMPORTING", fromId);
        from.command("CLUSTER", "SETSLOT", Integer.toString(slot), "MIGRATING", toId);
        to.command("CLUSTER", "SETSLOT", Integer.toString(slot), "NODE", toId);
        for (RedisNode node : cluster.masters()) {
            if (node != to) {
                node.command("CLUSTER", "SETSLOT", Integer.toString(slot), "NODE", toId);
            }
        }
    }

    private static List<String> namesInSlot(int slot, int count) {
        List<String> names = new ArrayList<>();
        for (int i = 0; names.size() < count; i++) {
            String name = "batch:" + i;
            if (SlotHash.getSlot(LockKeys.lockKey(PREFIX, name)) == slot) {
                names.add(name);
            }
        }
        return names;
    }

    private static String channelInSlot(int slot) {
        for (int i = 0; ; i++) {
            String channel = "cluster-pubsub:{" + UUID.randomUUID() + "}";
            if (SlotHash.getSlot(channel) == slot) {
                return channel;
            }
        }
    }

    private static Set<Integer> slotsOf(List<String> keys) {
        Set<Integer> slots = new HashSet<>();
        keys.forEach(key -> slots.add(SlotHash.getSlot(key)));
        return slots;
    }

    private static long shardSubscribers(RedisNode node, String channel) {
        List<?> reply = (List<?>) node.command("PUBSUB", "SHARDNUMSUB", channel);
        return (Long) reply.get(1);
    }
}
