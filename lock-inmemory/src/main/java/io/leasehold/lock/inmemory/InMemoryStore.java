package io.leasehold.lock.inmemory;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The keyspace of an {@link InMemoryLockBackend}: string and sorted-set keys with optional
 * millisecond TTLs, and the few Redis commands the scripts use, with Redis's return values. A key
 * may also hold a hash ({@link #hset}), which no Leasehold script writes: it stands for a foreign
 * application's key under the lock prefix, and {@code GET} on it fails with
 * {@link WrongTypeException} as in Redis. Sorted sets (the wait queue's keys) are ordered as in
 * Redis: by score, then by member; an emptied one is deleted.
 *
 * <p>Expiry is lazy, as in Redis, but checked on every access against the time passed in, so a
 * moved clock is observed by the very next command. A key is gone once its whole TTL has elapsed
 * ({@code now >= expireAt}); Redis keeps a key through the millisecond in which PTTL reads 0, a
 * window no caller can rely on.
 *
 * <p>Not threadsafe: every method must be called while holding this object's monitor, which is
 * the store lock that makes one script execution atomic.
 */
final class InMemoryStore {

    /** Marks a key without a TTL. */
    static final long NO_EXPIRY = Long.MAX_VALUE;

    private final Map<String, Entry> entries = new HashMap<>();
    /** Highest fencing token ever issued; see {@link #serverTimeMicros(long)}. Survives {@link #clear()}. */
    private long highestToken = Long.MIN_VALUE;
    /** The emulated server process's {@code run_id} (INFO server): a new one at each {@link #restart()}. */
    private String runId = newRunId();

    /** Redis's reply to a command on a key of the wrong type. */
    static final String WRONGTYPE = "WRONGTYPE Operation against a key holding the wrong kind of value";

    /**
     * A key's value: a string, or (when {@code hash} is not null) a hash, whose fields no script
     * reads, or (when {@code zset} is not null) a sorted set, member to score.
     */
    private record Entry(String value, Map<String, String> hash, Map<String, Double> zset, long expireAtMillis) {

        static Entry string(String value, long expireAtMillis) {
            return new Entry(value, null, null, expireAtMillis);
        }

        Entry withExpiry(long at) {
            return new Entry(value, hash, zset, at);
        }

        String type() {
            return hash != null ? "hash" : zset != null ? "zset" : "string";
        }

        boolean expiredAt(long nowMillis) {
            return nowMillis >= expireAtMillis;
        }
    }

    /**
     * GET: the value, or null when absent or expired.
     *
     * @throws WrongTypeException when the key holds a hash
     */
    String get(String key, long nowMillis) {
        Entry entry = live(key, nowMillis);
        if (entry == null) {
            return null;
        }
        if (entry.value() == null) {
            throw new WrongTypeException(key, entry.type());
        }
        return entry.value();
    }

    /** SET without options: stores the value (replacing a key of any type) and drops any TTL. */
    void set(String key, String value) {
        entries.put(key, Entry.string(value, NO_EXPIRY));
    }

    /**
     * HSET key field value: adds the field to the hash at {@code key}, creating it without a TTL.
     *
     * @throws WrongTypeException when the key holds a string
     */
    void hset(String key, String field, String value, long nowMillis) {
        Entry entry = live(key, nowMillis);
        if (entry != null && entry.hash() == null) {
            throw new WrongTypeException(key, entry.type());
        }
        Map<String, String> hash = new HashMap<>(entry == null ? Map.of() : entry.hash());
        hash.put(field, value);
        entries.put(key, new Entry(null, Map.copyOf(hash), null, entry == null ? NO_EXPIRY : entry.expireAtMillis()));
    }

    /**
     * ZADD key score member: adds the member or moves it to the new score, creating the set without
     * a TTL (an existing key keeps its TTL, as in Redis).
     *
     * @throws WrongTypeException when the key holds another type
     */
    void zadd(String key, double score, String member, long nowMillis) {
        Entry entry = live(key, nowMillis);
        Map<String, Double> zset = new HashMap<>(zset(key, entry));
        zset.put(member, score);
        entries.put(key, new Entry(null, null, Map.copyOf(zset), entry == null ? NO_EXPIRY : entry.expireAtMillis()));
    }

    /** ZSCORE: the member's score, or null when the set or the member is absent. */
    Double zscore(String key, String member, long nowMillis) {
        return zset(key, live(key, nowMillis)).get(member);
    }

    /** ZREM for one member: 1 when it was there; a set left empty is deleted, as in Redis. */
    long zrem(String key, String member, long nowMillis) {
        Entry entry = live(key, nowMillis);
        Map<String, Double> zset = new HashMap<>(zset(key, entry));
        if (zset.remove(member) == null) {
            return 0;
        }
        if (zset.isEmpty()) {
            entries.remove(key);
        } else {
            entries.put(key, new Entry(null, null, Map.copyOf(zset), entry.expireAtMillis()));
        }
        return 1;
    }

    /** The members in Redis's order (score, then member), with their scores; empty for a missing key. */
    List<Map.Entry<String, Double>> zrange(String key, long nowMillis) {
        List<Map.Entry<String, Double>> members =
                new ArrayList<>(zset(key, live(key, nowMillis)).entrySet());
        members.sort(Map.Entry.<String, Double>comparingByValue().thenComparing(Map.Entry.comparingByKey()));
        return members;
    }

    private static Map<String, Double> zset(String key, Entry entry) {
        if (entry == null) {
            return Map.of();
        }
        if (entry.zset() == null) {
            throw new WrongTypeException(key, entry.type());
        }
        return entry.zset();
    }

    /**
     * HGET key field: the field's value, or null when the key or the field is absent.
     *
     * @throws WrongTypeException when the key holds a string or a sorted set
     */
    String hget(String key, String field, long nowMillis) {
        Entry entry = live(key, nowMillis);
        if (entry == null) {
            return null;
        }
        if (entry.hash() == null) {
            throw new WrongTypeException(key, entry.type());
        }
        return entry.hash().get(field);
    }

    /** SET key value KEEPTTL: stores the value (replacing a key of any type), keeping the live key's TTL. */
    void setKeepTtl(String key, String value, long nowMillis) {
        Entry entry = live(key, nowMillis);
        entries.put(key, Entry.string(value, entry == null ? NO_EXPIRY : entry.expireAtMillis()));
    }

    /** SET key value PX ttl; the caller has checked {@code ttlMillis > 0}. */
    void setPx(String key, String value, long ttlMillis, long nowMillis) {
        entries.put(key, Entry.string(value, expireAt(ttlMillis, nowMillis)));
    }

    /**
     * PEXPIRE: 1 when the key exists (a TTL of 0 or less deletes it, as in Redis), else 0.
     *
     * @throws ArithmeticException when now + ttl overflows; Redis rejects that as an invalid expire time
     */
    long pexpire(String key, long ttlMillis, long nowMillis) {
        Entry entry = live(key, nowMillis);
        if (entry == null) {
            return 0;
        }
        if (ttlMillis <= 0) {
            entries.remove(key);
        } else {
            entries.put(key, entry.withExpiry(expireAt(ttlMillis, nowMillis)));
        }
        return 1;
    }

    /** PTTL: remaining milliseconds, -1 for a key without TTL, -2 for a missing key. */
    long pttl(String key, long nowMillis) {
        Entry entry = live(key, nowMillis);
        if (entry == null) {
            return -2;
        }
        return entry.expireAtMillis() == NO_EXPIRY ? -1 : entry.expireAtMillis() - nowMillis;
    }

    /** TYPE: {@code string}, {@code hash}, {@code zset}, or {@code none} for a missing key. */
    String type(String key, long nowMillis) {
        Entry entry = live(key, nowMillis);
        if (entry == null) {
            return "none";
        }
        return entry.type();
    }

    /** EXISTS for one key. */
    boolean exists(String key, long nowMillis) {
        return live(key, nowMillis) != null;
    }

    /** DEL for one key: true when a live key was deleted. */
    boolean del(String key, long nowMillis) {
        return live(key, nowMillis) != null && entries.remove(key) != null;
    }

    /** The live keys, sorted. */
    Set<String> keys(long nowMillis) {
        removeExpired(nowMillis);
        return new TreeSet<>(entries.keySet());
    }

    /** FLUSHALL: every key goes, counters included. The server process, and its run id, stay. */
    void clear() {
        entries.clear();
    }

    /** A restart without persistence: every key goes, and the server process has a new run id. */
    void restart() {
        entries.clear();
        runId = newRunId();
        highestToken = Long.MIN_VALUE; // a new process knows no token it issued before
    }

    /** The server process's run id, 40 hex digits as Redis's. */
    String runId() {
        return runId;
    }

    private static String newRunId() {
        java.util.concurrent.ThreadLocalRandom random = java.util.concurrent.ThreadLocalRandom.current();
        return String.format("%016x%016x%08x", random.nextLong(), random.nextLong(), random.nextInt());
    }

    /**
     * The emulated Redis {@code TIME}, in microseconds: the clock, but always above the highest
     * token issued so far. A real server spends well over a microsecond per acquisition, so its
     * {@code TIME} has moved past every token it handed out; a {@link ManualClock} standing still
     * (or a user clock moved backwards) spends no time at all, and this floor stands in for the time
     * that would have passed — without it, a rolled-back counter under a standing clock would repeat
     * the highest token. With a clock that runs, the floor never shows.
     */
    long serverTimeMicros(long clockMicros) {
        return Math.max(clockMicros, highestToken + 1);
    }

    /** Records a fencing token handed out, for {@link #serverTimeMicros(long)}. */
    void tokenIssued(long token) {
        highestToken = Math.max(highestToken, token);
    }

    /** What Redis answers a command on a key of the wrong type: {@value #WRONGTYPE}. */
    static final class WrongTypeException extends IllegalStateException {

        private static final long serialVersionUID = 1L;

        WrongTypeException(String key, String type) {
            super(WRONGTYPE + " (in-memory backend: key '" + key + "' holds a " + type + ")");
        }
    }

    private Entry live(String key, long nowMillis) {
        Entry entry = entries.get(key);
        if (entry != null && entry.expiredAt(nowMillis)) {
            entries.remove(key);
            return null;
        }
        return entry;
    }

    private void removeExpired(long nowMillis) {
        Iterator<Entry> it = entries.values().iterator();
        while (it.hasNext()) {
            if (it.next().expiredAt(nowMillis)) {
                it.remove();
            }
        }
    }

    private static long expireAt(long ttlMillis, long nowMillis) {
        long at = Math.addExact(nowMillis, ttlMillis);
        if (at == NO_EXPIRY) {
            throw new ArithmeticException("expire time overflows");
        }
        return at;
    }
}
