package io.leasehold.lock.lettuce;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A holder in a process of its own, for {@link LettuceHandoffAttackTest}: it takes lock
 * {@code args[2]} on {@code args[0]:args[1]} with a 2 s auto-renewed lease, queues a second
 * acquisition of its own behind it, says {@code READY <token>}, and then obeys lines on stdin:
 * {@code RELEASE} (says {@code RELEASED <result> <state>}), {@code RELEASE-WAITER}, {@code EXIT}.
 * The waiter says {@code WAITER <token>} when it gets the lock.
 */
public final class HandoffHolderProcess {

    private HandoffHolderProcess() {}

    public static void main(String[] args) throws Exception {
        RedisClient redis = RedisClient.create(RedisURI.builder()
                .withHost(args[0])
                .withPort(Integer.parseInt(args[1]))
                .withTimeout(Duration.ofSeconds(20))
                .build());
        // A cold JVM on a busy machine: the first connect and script load may take seconds.
        LockClient locks = LockClient.builder(LettuceLockBackend.create(redis))
                .commandTimeout(Duration.ofSeconds(20))
                .build();
        LockOptions options =
                LockOptions.builder().leaseTime(Duration.ofSeconds(2)).build();
        try {
            Lease held = locks.lock(args[2], options).acquire(Duration.ofSeconds(60));
            CompletableFuture<Lease> waiting = locks.lock(args[2], options).acquireAsync(Duration.ofSeconds(120));
            waiting.whenComplete(
                    (lease, error) -> say(lease != null ? "WAITER " + lease.fencingToken() : "WAITER-FAILED " + error));
            say("READY " + held.fencingToken());
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            for (String line = in.readLine(); line != null && !line.equals("EXIT"); line = in.readLine()) {
                if (line.equals("RELEASE")) {
                    try {
                        boolean released = held.release();
                        say("RELEASED " + released + " " + held.state());
                    } catch (RuntimeException e) {
                        say("RELEASE-FAILED " + e);
                    }
                } else if (line.equals("RELEASE-WAITER")) {
                    say("WAITER-RELEASED " + waiting.get(30, TimeUnit.SECONDS).release());
                }
            }
        } finally {
            locks.close();
            redis.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }

    private static synchronized void say(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
