package io.leasehold.lock.spring;

import io.leasehold.lock.testkit.redis.RedisFixtures;
import io.leasehold.lock.testkit.redis.RedisNode;
import io.leasehold.lock.testkit.redis.StandaloneRedis;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

/**
 * A test class of the starter on a real {@code redis-server} of its own: started before its first test,
 * stopped after its last, emptied before each test.
 */
public abstract class OnRealRedis {

    protected static StandaloneRedis redis;
    protected static RedisNode server;

    @BeforeAll
    static void startRedis() {
        redis = RedisFixtures.startStandalone();
        server = redis.server();
    }

    @AfterAll
    static void stopRedis() {
        redis.close();
    }

    @BeforeEach
    void emptyRedis() {
        server.command("FLUSHALL");
    }

    /** Live threads of Leasehold's ({@code leasehold-*}), of every client in this JVM. */
    protected static long leaseholdThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(Thread::isAlive)
                .filter(t -> t.getName().startsWith("leasehold-"))
                .count();
    }

    /** Connections to the server whose client name is {@code name}. */
    protected static long connections(String name) {
        return ((String) server.command("CLIENT", "LIST"))
                .lines()
                .filter(l -> l.contains("name=" + name + " "))
                .count();
    }

    /**
     * What {@code count} says once it is at most {@code target}, or after 10 s: threads and connections
     * end a moment after a close returns (the server drops a connection when it reads the close).
     */
    public static long awaitAtMost(LongSupplier count, long target) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        long now = count.getAsLong();
        while (now > target && System.nanoTime() < deadline) {
            Thread.sleep(20);
            now = count.getAsLong();
        }
        return now;
    }
}
