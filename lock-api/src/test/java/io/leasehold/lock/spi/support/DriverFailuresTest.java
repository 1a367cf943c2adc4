package io.leasehold.lock.spi.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/** The transient rule by a client's two exception families, as both drivers apply it. */
class DriverFailuresTest {

    /** A client's base exception, as Jedis's JedisException or Lettuce's RedisException. */
    static class ClientException extends RuntimeException {
        ClientException(String message) {
            super(message);
        }
    }

    /** A client's type for Redis error replies, a subtype of its base, as JedisDataException. */
    static class ServerReply extends ClientException {
        ServerReply(String message) {
            super(message);
        }
    }

    private static boolean isTransient(Throwable failure) {
        return DriverFailures.isTransient(failure, ServerReply.class, ClientException.class);
    }

    @Test
    void shouldTakeTheServersNotNowRepliesAsTransientAndOtherRepliesAsFinal() {
        assertThat(isTransient(new ServerReply("LOADING Redis is loading the dataset in memory")))
                .isTrue();
        assertThat(isTransient(new ServerReply("READONLY You can't write against a read only replica.")))
                .isTrue();
        assertThat(isTransient(new ServerReply("WRONGTYPE Operation against a key holding the wrong kind of value")))
                .isFalse();
        assertThat(isTransient(new ServerReply("ERR Error running script"))).isFalse();
    }

    @Test
    void shouldTakeEveryClientSideFailureAsTransientAlsoWhenWrapped() {
        assertThat(isTransient(new ClientException("Failed to connect to 127.0.0.1:6379.")))
                .isTrue();
        assertThat(isTransient(new CompletionException(new ClientException("Connection reset"))))
                .isTrue();
    }

    @Test
    void shouldFallBackToTheDefaultForOtherFailures() {
        assertThat(isTransient(new java.net.SocketTimeoutException("Read timed out")))
                .isTrue();
        assertThat(isTransient(new IllegalArgumentException("bad key"))).isFalse();
    }
}
