package io.leasehold.lock.history;

/**
 * A history line that is not a valid record: not one JSON object, an unknown {@code type}, a missing
 * or mistyped field. The message names the file and line (when read from a file), the field and the
 * rule.
 */
public final class HistoryFormatException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public HistoryFormatException(String message) {
        super(message);
    }

    public HistoryFormatException(String message, Throwable cause) {
        super(message, cause);
    }
}
