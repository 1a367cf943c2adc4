package io.leasehold.lock.testkit.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.spi.LockKeys;
import io.leasehold.lock.spi.ScriptNames;
import io.leasehold.lock.testkit.redis.ClusterRedis;
import io.leasehold.lock.testkit.redis.ClusterSlots;
import io.leasehold.lock.testkit.redis.RedisFixtures;
import io.leasehold.lock.testkit.redis.RedisNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Every driver on a three-master Redis Cluster: keys and channels on their slot's node, renewals
 * batched by slot, subscriptions made again after every node's pub/sub connection is killed and
 * after a channel's slot migrates. Extend it with your {@link DriverUnderTest}; it runs on the JVM's
 * shared cluster.
 */
public abstract class ClusterDriverTests {

    private static final String PREFIX = LockClient.Builder.DEFAULT_KEY_PREFIX;

    /** The driver under test. */
    protected abstract DriverUnderTest driver();

    private ClusterRedis cluster;

    @BeforeEach
    void restoreCluster() {
        cluster = RedisFixtures.sharedCluster();
        cluster.restoreAll();
    }

    @Test
    void shouldPlaceEachLockOnTheMasterOwningItsSlotAcrossAllMasters() {
        Set<RedisNode> owners = new HashSet<>();
        try (LockClient locks = LockClient.create(driver().open(cluster).backend())) {
            List<Lease> leases = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                String name = "spread:" + i + ":" + UUID.randomUUID();
                leases.add(locks.lock(name).acquire(Duration.ofSeconds(10)));
                String key = LockKeys.lockKey(PREFIX, name);
                RedisNode owner = cluster.masterForKey(key);
                assertEquals(1L, owner.command("EXISTS", key), key + " on the owner of slot " + ClusterSlots.slot(key));
                owners.add(owner);
            }
            assertEquals(cluster.masters().size(), owners.size(), "30 random names cover every master");
            leases.forEach(lease -> assertTrue(lease.release()));
        }
    }

    @Test
    void shouldRenewInBatchesThatEachStayWithinOneSlot() {
        // Three slots on three different masters, three lock names in each: one renew call per slot.
        Map<Integer, List<String>> namesBySlot = new LinkedHashMap<>();
        for (int node = 0; node < 3; node++) {
            int slot = 100 + node * (ClusterSlots.SLOTS / 3);
            namesBySlot.put(slot, namesInSlot(slot, 3));
        }
        assertEquals(
                3,
                namesBySlot.keySet().stream()
                        .map(cluster::nodeForSlot)
                        .distinct()
                        .count());
        LockOptions shortLease =
                LockOptions.builder().leaseTime(Duration.ofMillis(900)).build();
        RecordingBackend recording = new RecordingBackend(driver().open(cluster).backend(), ScriptNames.RENEW);
        try (LockClient locks = LockClient.create(recording)) {
            List<Lease> leases = new ArrayList<>();
            namesBySlot
                    .values()
                    .forEach(names -> names.forEach(
                            name -> leases.add(locks.lock(name, shortLease).acquire(Duration.ofSeconds(10)))));

            Eventually.until(
                    "every slot's three leases were renewed in one call",
                    () -> namesBySlot.keySet().stream()
                            .allMatch(slot -> recording.calls.stream()
                                    .anyMatch(keys ->
                                            keys.size() == 3 && slotsOf(keys).equals(Set.of(slot)))));
            Eventually.until("several renewal rounds passed", () -> recording.calls.size() >= 9);

            for (List<String> keys : recording.calls) {
                assertEquals(1, slotsOf(keys).size(), "slots of one renew call " + keys);
            }
            leases.forEach(lease -> assertTrue(lease.isValid(), "still valid after several lease times"));
            leases.forEach(lease -> assertTrue(lease.release()));
        }
    }

    @Test
    void shouldKeepFairWaitersPlacesInRenewCallsThatEachStayWithinOneSlot() throws Exception {
        // Three fair locks in slots on three masters, each held by one client, two waiters of another
        // client on each: their places ride in the waiters' client's renew calls, one slot per call.
        String run = UUID.randomUUID().toString();
        List<String> names = new ArrayList<>();
        for (int node = 0; node < 3; node++) {
            names.add(namesInSlot("fair:" + run + ":", 200 + node * (ClusterSlots.SLOTS / 3), 1)
                    .get(0));
        }
        LockOptions heldLong = LockOptions.builder()
                .leaseTime(Duration.ofSeconds(60))
                .autoRenew(false)
                .build();
        RecordingBackend renewals = new RecordingBackend(driver().open(cluster).backend(), ScriptNames.RENEW);
        RecordingBackend attempts = new RecordingBackend(renewals, ScriptNames.ACQUIRE);
        try (LockClient holders = LockClient.create(driver().open(cluster).backend());
                LockClient waiters = LockClient.create(attempts)) {
            List<Lease> held = new ArrayList<>();
            List<CompletableFuture<Lease>> waiting = new ArrayList<>();
            for (String name : names) {
                held.add(holders.fairLock(name, heldLong).acquire(Duration.ZERO));
                for (int i = 0; i < 2; i++) {
                    waiting.add(waiters.fairLock(name).acquireAsync(Duration.ofSeconds(60)));
                }
            }
            for (String name : names) {
                String queue = LockKeys.queueKey(PREFIX, name);
                Eventually.until(
                        "two places in " + queue,
                        () -> ((Number) cluster.masterForKey(queue).command("ZCARD", queue)).longValue() == 2);
            }
            // (a waiter asks once more when its name's subscription becomes active: a release may have
            // come before it; counted from a renewal round after that)
            Eventually.until(
                    "the waiters' subscriptions are active",
                    () -> waiters.diagnostics().subscribedNames() == 3);
            long subscribed = placeRenewals(renewals);
            Eventually.until("a round of place renewals since", () -> placeRenewals(renewals) >= subscribed + 3);
            int asked = attempts.calls.size();

            // Three waiter leases (1.5 s each): only the watchdog's renewals can have kept the places.
            long before = placeRenewals(renewals);
            Eventually.until(
                    "nine rounds of renew calls with the places, one call per slot each",
                    () -> placeRenewals(renewals) >= before + 27);

            assertEquals(asked, attempts.calls.size(), "no waiter asked again: its place was kept");
            for (List<String> keys : renewals.calls) {
                assertEquals(1, slotsOf(keys).size(), "slots of one renew call " + keys);
            }
            for (int i = 0; i < names.size(); i++) {
                // (the two waiters' enqueue order is the order their attempts reached Redis)
                assertTrue(held.get(i).release());
                Lease first = (Lease) CompletableFuture.anyOf(waiting.get(2 * i), waiting.get(2 * i + 1))
                        .get(10, TimeUnit.SECONDS);
                assertTrue(first.fencingToken() > held.get(i).fencingToken());
                assertTrue(first.release());
                for (CompletableFuture<Lease> both : waiting.subList(2 * i, 2 * i + 2)) {
                    assertTrue(both.get(10, TimeUnit.SECONDS).fencingToken() >= first.fencingToken());
                }
                waiting.get(2 * i + 1).get().release();
                waiting.get(2 * i).get().release();
            }
        }
    }

    /** Renew calls that carried two waiters' places and no lease (six keys). */
    private static long placeRenewals(RecordingBackend renewals) {
        return renewals.calls.stream().filter(keys -> keys.size() == 6).count();
    }

    @Test
    void shouldResubscribeEveryChannelAfterEveryNodesPubSubConnectionIsKilled() throws Exception {
        // Two channels in different slots per master (a one-command resubscribe of both gets CROSSSLOT).
        Map<String, MessageRecorder> recorders = new LinkedHashMap<>();
        for (int node = 0; node < 3; node++) {
            for (int offset : new int[] {10, 20}) {
                recorders.put(channelInSlot(node * (ClusterSlots.SLOTS / 3) + offset), new MessageRecorder());
            }
        }
        try (LockBackend backend = driver().open(cluster).backend()) {
            assertEquals(Boolean.TRUE, backend.shardedPubSub().get(10, TimeUnit.SECONDS));
            for (Map.Entry<String, MessageRecorder> entry : recorders.entrySet()) {
                backend.subscribe(entry.getKey(), entry.getValue()).get(10, TimeUnit.SECONDS);
            }

            // (three rounds: each node's channels come back together, which is where a one-command
            // resubscribe of several slots fails)
            for (int round = 1; round <= 3; round++) {
                for (RedisNode master : cluster.masters()) {
                    master.command("CLIENT", "KILL", "TYPE", "pubsub");
                }

                for (Map.Entry<String, MessageRecorder> entry : recorders.entrySet()) {
                    String channel = entry.getKey();
                    String resubscribed = entry.getValue().resubscribed.poll(20, TimeUnit.SECONDS);
                    int kill = round;
                    assertEquals(
                            channel,
                            resubscribed,
                            () -> "resubscribed " + channel + " after kill " + kill + "; "
                                    + Eventually.threadsNamed("leasehold-"));
                    RedisNode owner = cluster.masterForKey(channel);
                    Eventually.until(
                            channel + " is subscribed on its slot's master",
                            () -> shardSubscribers(owner, channel) == 1);
                    owner.command("SPUBLISH", channel, "after kill " + round);
                    assertEquals(
                            "after kill " + round,
                            entry.getValue().messages.poll(10, TimeUnit.SECONDS),
                            "message on " + channel);
                }
            }
        }
    }

    @Test
    void shouldFollowAChannelToItsNewMasterWhenItsSlotMigrates() throws Exception {
        String channel = channelInSlot(emptySlot(cluster, 42));
        int slot = ClusterSlots.slot(channel);
        RedisNode source = cluster.nodeForSlot(slot);
        RedisNode target = cluster.masters().stream()
                .filter(node -> node != source)
                .findFirst()
                .orElseThrow();
        MessageRecorder recorder = new MessageRecorder();
        try (LockBackend backend = driver().open(cluster).backend()) {
            backend.subscribe(channel, recorder).get(10, TimeUnit.SECONDS);
            try {
                moveSlot(cluster, slot, source, target);

                assertEquals(channel, recorder.resubscribed.poll(30, TimeUnit.SECONDS), "resubscribed after the move");
                Eventually.until("the new master has the subscription", () -> shardSubscribers(target, channel) == 1);
                target.command("SPUBLISH", channel, "moved");
                assertEquals("moved", recorder.messages.poll(10, TimeUnit.SECONDS));
            } finally {
                moveSlot(cluster, slot, target, source);
                cluster.restoreAll();
            }
        }
    }

    /** Moves an empty slot between masters the way redis-cli does, telling every master the new owner. */
    /**
     * Moves {@code slot} of {@code cluster} from {@code from} to {@code to} (no keys to migrate): the
     * owner changes on {@code to} first, then on every other master, as {@code redis-cli --cluster
     * reshard} does; {@code from} drops the slot's shard channels as it learns of it.
     */
    public static void moveSlot(ClusterRedis cluster, int slot, RedisNode from, RedisNode to) {
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
        return namesInSlot("batch:", slot, count);
    }

    /** The first {@code count} names {@code <prefix><i>} whose lock key is in {@code slot}. */
    private static List<String> namesInSlot(String prefix, int slot, int count) {
        List<String> names = new ArrayList<>();
        for (int i = 0; names.size() < count; i++) {
            String name = prefix + i;
            if (ClusterSlots.slot(LockKeys.lockKey(PREFIX, name)) == slot) {
                names.add(name);
            }
        }
        return names;
    }

    /**
     * The first slot from {@code from} on that holds no key on its owner: only such a slot can be
     * moved without migrating keys, and the shared cluster keeps keys of earlier tests (a fencing
     * counter lives a day) in slots picked at random.
     */
    public static int emptySlot(ClusterRedis cluster, int from) {
        for (int slot = from; slot < ClusterSlots.SLOTS; slot++) {
            Object keys = cluster.nodeForSlot(slot).command("CLUSTER", "COUNTKEYSINSLOT", Integer.toString(slot));
            if (((Long) keys) == 0) {
                return slot;
            }
        }
        throw new IllegalStateException("every slot from " + from + " on holds keys");
    }

    /** A new shard channel name of {@code slot}. */
    public static String channelInSlot(int slot) {
        while (true) {
            String channel = "cluster-pubsub:{" + UUID.randomUUID() + "}";
            if (ClusterSlots.slot(channel) == slot) {
                return channel;
            }
        }
    }

    private static Set<Integer> slotsOf(List<String> keys) {
        Set<Integer> slots = new HashSet<>();
        keys.forEach(key -> slots.add(ClusterSlots.slot(key)));
        return slots;
    }

    /** How many clients {@code node} has subscribed to the shard channel {@code channel}. */
    public static long shardSubscribers(RedisNode node, String channel) {
        List<?> reply = (List<?>) node.command("PUBSUB", "SHARDNUMSUB", channel);
        return (Long) reply.get(1);
    }
}
