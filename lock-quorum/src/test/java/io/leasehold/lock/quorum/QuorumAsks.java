package io.leasehold.lock.quorum;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/** Acquisitions asked of a quorum directly (acquire.lua over its members), as the patience tests ask them. */
final class QuorumAsks {

    static final String OWNER = "0123456789abcdef0123456789abcdef";

    private QuorumAsks() {}

    /** One grant of another name, so that this client has enlisted every member. */
    static void warmUp(QuorumBackend quorum) throws Exception {
        List<?> warmUp = (List<?>)
                quorum.eval(Members.ACQUIRE, Members.acquireKeys("warm-up"), Members.acquireArgs(OWNER, 30_000, "1"))
                        .get(20, TimeUnit.SECONDS);
        assertEquals(1L, warmUp.get(0), "warm-up: " + warmUp);
    }

    /**
     * Asks the quorum again and again for {@code name} with a lease of {@code leaseMs}, each time with an
     * owner of its own, for up to {@code seconds} or until granted; the replies and failures, in order.
     */
    static List<String> askUntilGranted(QuorumBackend quorum, String name, long leaseMs, int seconds) throws Exception {
        List<String> outcomes = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        int attempt = 0;
        while (System.nanoTime() - deadline < 0) {
            String owner = OWNER.substring(0, 30) + String.format("%02d", attempt++ % 100);
            try {
                List<?> reply = (List<?>) quorum.eval(
                                Members.ACQUIRE, Members.acquireKeys(name), Members.acquireArgs(owner, leaseMs, "1"))
                        .get(20, TimeUnit.SECONDS);
                outcomes.add(reply.toString());
                if (Long.valueOf(1L).equals(reply.get(0))) {
                    return outcomes;
                }
            } catch (ExecutionException e) {
                outcomes.add(e.getCause().getClass().getSimpleName() + ": "
                        + e.getCause().getMessage());
            }
            Thread.sleep(100);
        }
        return outcomes;
    }

    /** The attempts of {@link #askUntilGranted}, for a failure message. */
    static String summary(List<String> outcomes) {
        return outcomes.size() + " attempts, none granted; first: " + outcomes.get(0) + "; last: "
                + outcomes.get(outcomes.size() - 1);
    }
}
