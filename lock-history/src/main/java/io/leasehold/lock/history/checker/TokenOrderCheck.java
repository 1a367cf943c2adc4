package io.leasehold.lock.history.checker;

import io.leasehold.lock.history.AcquireAttempt;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * G3 as the history shows it: per lock, no two acquisitions share a token, and an acquisition that
 * began after another had ended (it returned before this one was called: real-time order, whatever
 * the process) got a larger token. Acquisitions that overlapped in time have no order to check. One
 * pass in start order, keeping the largest token of the acquisitions already ended.
 */
final class TokenOrderCheck {

    private TokenOrderCheck() {}

    static void run(HistoryIndex index, List<Violation> violations) {
        index.acquisitionsByLock.forEach((lock, attempts) -> check(lock, attempts, violations));
    }

    private static void check(String lock, List<AcquireAttempt> attempts, List<Violation> violations) {
        Map<Long, AcquireAttempt> byToken = new HashMap<>();
        for (AcquireAttempt attempt : attempts) {
            AcquireAttempt first = byToken.putIfAbsent(attempt.token(), attempt);
            if (first != null) {
                violations.add(new Violation(
                        ViolationKind.DUPLICATE_TOKEN,
                        "lock '" + lock + "': token " + attempt.token() + " was granted twice, to " + describe(first)
                                + " and to " + describe(attempt)));
            }
        }
        List<AcquireAttempt> byStart = new ArrayList<>(attempts);
        byStart.sort(Comparator.comparingLong(AcquireAttempt::start));
        PriorityQueue<AcquireAttempt> notYetEnded = new PriorityQueue<>(Comparator.comparingLong(AcquireAttempt::end));
        AcquireAttempt highestEnded = null;
        for (AcquireAttempt attempt : byStart) {
            while (!notYetEnded.isEmpty() && notYetEnded.peek().end() < attempt.start()) {
                AcquireAttempt ended = notYetEnded.poll();
                if (highestEnded == null || ended.token() > highestEnded.token()) {
                    highestEnded = ended;
                }
            }
            if (highestEnded != null && attempt.token() < highestEnded.token()) {
                violations.add(new Violation(
                        ViolationKind.NON_MONOTONIC_TOKEN,
                        "lock '" + lock + "': "
                                + describe(attempt) + " got a smaller token than " + describe(highestEnded)
                                + ", which had returned before it was called"));
            }
            notYetEnded.add(attempt);
        }
    }

    private static String describe(AcquireAttempt attempt) {
        return attempt.process() + " (token " + attempt.token() + ", acquire [" + attempt.start() + ".." + attempt.end()
                + "])";
    }
}
