package io.leasehold.lock.testkit.driver;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The work under one lock, as a test sees it: a holder {@linkplain #enter enters} with its lease's
 * fencing token and {@linkplain #leave leaves} before it releases. Records a violation when two
 * holders are inside at once (mutual exclusion, G1) or a holder's token is not above every earlier
 * holder's (G3); a test adds its own with {@link #violation}. Threadsafe.
 */
public final class ExclusiveSection {

    private final AtomicInteger inside = new AtomicInteger();
    private final AtomicLong lastToken = new AtomicLong(Long.MIN_VALUE);
    private final List<String> violations = new CopyOnWriteArrayList<>();

    /** A holder with {@code token} starts its work. */
    public void enter(long token) {
        int now = inside.incrementAndGet();
        if (now != 1) {
            violations.add("two holders at once: " + now + " with token " + token);
        }
        long last = lastToken.getAndAccumulate(token, Math::max);
        if (token <= last) {
            violations.add("token " + token + " not above the last holder's " + last);
        }
    }

    /** The holder inside ends its work. */
    public void leave() {
        inside.decrementAndGet();
    }

    /** Records a violation the test found itself. */
    public void violation(String what) {
        violations.add(what);
    }

    /** Everything recorded so far; empty if every promise held. */
    public List<String> violations() {
        return List.copyOf(violations);
    }
}
