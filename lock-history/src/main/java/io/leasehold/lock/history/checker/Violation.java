package io.leasehold.lock.history.checker;

import java.util.Objects;

/**
 * One thing the history shows went wrong, with a message that names the processes, lock or resource,
 * tokens and times involved.
 *
 * @param kind what it breaks
 * @param message the evidence
 */
public record Violation(ViolationKind kind, String message) {

    public Violation {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(message, "message");
    }

    @Override
    public String toString() {
        return kind + ": " + message;
    }
}
