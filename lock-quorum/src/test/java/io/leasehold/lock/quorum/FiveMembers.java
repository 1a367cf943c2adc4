package io.leasehold.lock.quorum;

import io.leasehold.lock.spi.LockBackend;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Five quorum members as a scenario sees them, in memory or on real {@code redis-server}s of one driver: a
 * backend of each, what each holds under one lock key, and how each dies. Closing it stops the members.
 */
interface FiveMembers extends AutoCloseable {

    /** Five in-memory members ({@link Members}); {@code lockKey} is the key {@link #value} and the rest read. */
    static FiveMembers inMemory(String lockKey) {
        return new InMemory(lockKey);
    }

    /** Five real servers, each member a {@code driver} ("lettuce" or "jedis") backend ({@link RedisMembers}). */
    static FiveMembers redis(String driver, String lockKey) {
        return new Redis(driver, lockKey);
    }

    LockBackend newBackend(int member);

    /** The lock's value on {@code member}: "(none)" when it has none, "(down)" when the member is. */
    String value(int member);

    /** The lock's TTL on {@code member}, ms (negative when it has none, or the member is down). */
    long pttl(int member);

    /** Writes {@code value} under the lock key on {@code member}, without a TTL (another owner's lock, say). */
    void write(int member, String value);

    /** Deletes the lock key on {@code member}. */
    void delete(int member);

    /** The sorted set {@code key} of {@code member} (a quorum queue: waiter → ticket). */
    Map<String, Double> scores(int member, String key);

    void kill(int member);

    @Override
    void close();

    final class InMemory implements FiveMembers {
        private final Members members = new Members(5);
        private final String lockKey;

        private InMemory(String lockKey) {
            this.lockKey = lockKey;
        }

        @Override
        public LockBackend newBackend(int member) {
            return members.fixtures.get(member).newBackend();
        }

        @Override
        public String value(int member) {
            return members.store(member).get(lockKey).orElse("(none)");
        }

        @Override
        public long pttl(int member) {
            return members.store(member).pttl(lockKey);
        }

        @Override
        public void write(int member, String value) {
            members.store(member).writeKey(lockKey, value);
        }

        @Override
        public void delete(int member) {
            members.store(member).deleteKey(lockKey);
        }

        @Override
        public Map<String, Double> scores(int member, String key) {
            return members.store(member).sortedSetScores(key);
        }

        @Override
        public void kill(int member) {
            members.fixtures.get(member).makeUnavailable();
        }

        @Override
        public void close() {
            members.close();
        }
    }

    final class Redis implements FiveMembers {
        private final QuorumFixture fixture;
        private final String lockKey;

        private Redis(String driver, String lockKey) {
            this.fixture = RedisMembers.of(driver, 5);
            this.lockKey = lockKey;
        }

        @Override
        public LockBackend newBackend(int member) {
            return fixture.members().get(member).newBackend();
        }

        @Override
        public String value(int member) {
            try {
                Object value = RedisMembers.server(fixture, member).command("GET", lockKey);
                return value == null ? "(none)" : String.valueOf(value);
            } catch (RuntimeException down) {
                return "(down)";
            }
        }

        @Override
        public long pttl(int member) {
            try {
                return ((Number) RedisMembers.server(fixture, member).command("PTTL", lockKey)).longValue();
            } catch (RuntimeException down) {
                return -3;
            }
        }

        @Override
        public void write(int member, String value) {
            RedisMembers.server(fixture, member).command("SET", lockKey, value);
        }

        @Override
        public void delete(int member) {
            RedisMembers.server(fixture, member).command("DEL", lockKey);
        }

        @Override
        public Map<String, Double> scores(int member, String key) {
            List<?> flat =
                    (List<?>) RedisMembers.server(fixture, member).command("ZRANGE", key, "0", "-1", "WITHSCORES");
            Map<String, Double> scores = new HashMap<>();
            for (int i = 0; i + 1 < flat.size(); i += 2) {
                scores.put(String.valueOf(flat.get(i)), Double.valueOf(String.valueOf(flat.get(i + 1))));
            }
            return scores;
        }

        @Override
        public void kill(int member) {
            RedisMembers.server(fixture, member).kill();
        }

        @Override
        public void close() {
            fixture.close();
        }
    }
}
