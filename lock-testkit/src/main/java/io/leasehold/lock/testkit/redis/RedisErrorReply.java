package io.leasehold.lock.testkit.redis;

/**
 * A Redis error reply ({@code -ERR ...}, {@code -MOVED ...}, {@code -NOSCRIPT ...}). Thrown by
 * {@link RespClient#call} when the whole reply is an error; an error nested in an array reply
 * (e.g. from {@code EXEC}) is returned as an element of the list instead.
 */
public final class RedisErrorReply extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public RedisErrorReply(String message) {
        super(message);
    }

    /** The first word of the error, e.g. {@code ERR}, {@code MOVED}, {@code NOSCRIPT}. */
    public String code() {
        String message = getMessage();
        int space = message.indexOf(' ');
        return space < 0 ? message : message.substring(0, space);
    }
}
