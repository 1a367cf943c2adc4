package io.leasehold.lock.inmemory;

/**
 * The error an {@link InMemoryLockBackend} fails a script call with where Redis would answer the
 * script with an error, e.g. a lease that is not an integer. The message starts with the error
 * Redis would give ({@code ERR value is not an integer or out of range}) and then names the
 * script and the offending KEYS or ARGV entry.
 *
 * <p>As in Redis, a script that fails part-way keeps the writes it made before the error.
 */
public final class InMemoryScriptException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** An error with the given message. */
    public InMemoryScriptException(String message) {
        super(message);
    }
}
