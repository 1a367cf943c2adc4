package io.leasehold.lock.testkit.redis;

/**
 * A real-Redis fixture could not do what was asked: no Redis could be found, a server did not
 * start (the message then ends with the tail of its log), or an admin command could not reach a
 * server.
 */
public class RedisFixtureException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public RedisFixtureException(String message) {
        super(message);
    }

    public RedisFixtureException(String message, Throwable cause) {
        super(message, cause);
    }
}
