package io.leasehold.lock.lettuce;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.lock.LockClient;
import io.leasehold.lock.testkit.driver.Eventually;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Closing while the backend still connects to a server that never answers (it accepts the TCP
 * connection and then says nothing): close() stays bounded and leaves no thread of ours behind
 * (G12), also the one that runs Lettuce's blocking connect for a client created with its own URI.
 */
class LettuceCloseWhileConnectingTest {

    private static final String OUR_THREADS = "leasehold-";
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(10);

    @Test
    void shouldLeaveNoConnectThreadBehindWhenClosedWhileAServerNeverAnswers() throws Exception {
        try (ServerSocket silent = new ServerSocket(0)) { // accepts connections, never says a word
            // A client carrying its own URI: the backend can only connect it with the blocking connect(codec)
            RedisClient mute = RedisClient.create(
                    LettuceTestClients.RESOURCES,
                    RedisURI.builder()
                            .withHost("127.0.0.1")
                            .withPort(silent.getLocalPort())
                            .withTimeout(Duration.ofSeconds(60)) // Lettuce's own handshake timeout: far past the test
                            .build());
            try {
                Set<Thread> before = ourThreads();
                LockClient locks = LockClient.builder(LettuceLockBackend.create(mute))
                        .closeTimeout(CLOSE_TIMEOUT)
                        .build();
                Eventually.until(
                        "the backend is connecting on a thread of its own",
                        () -> newThreads(before).stream()
                                .anyMatch(t -> t.getName().contains("lettuce-connect")));

                long start = System.nanoTime();
                locks.close();
                Duration took = Duration.ofNanos(System.nanoTime() - start);

                // Bounded, and without waiting out the close timeout for the connect to give up
                assertThat(took).isLessThan(CLOSE_TIMEOUT.dividedBy(2));
                try {
                    Eventually.until(
                            "no thread started by the backend or the client is alive",
                            () -> newThreads(before).isEmpty());
                } catch (AssertionError stillAlive) {
                    throw new AssertionError(
                            stillAlive.getMessage() + "; alive: " + names(newThreads(before))
                                    + Eventually.threadsNamed(OUR_THREADS),
                            stillAlive);
                }
            } finally {
                mute.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            }
        }
    }

    private static Set<Thread> newThreads(Set<Thread> before) {
        Set<Thread> now = ourThreads();
        now.removeAll(before);
        return now;
    }

    private static Set<Thread> ourThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(Thread::isAlive)
                .filter(t -> t.getName().startsWith(OUR_THREADS))
                .collect(Collectors.toSet());
    }

    private static String names(Set<Thread> threads) {
        return threads.stream().map(Thread::getName).sorted().collect(Collectors.joining(", ", "[", "]"));
    }
}
