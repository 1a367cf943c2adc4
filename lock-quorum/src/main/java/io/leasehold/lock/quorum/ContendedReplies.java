package io.leasehold.lock.quorum;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.jspecify.annotations.Nullable;

/**
 * acquire.lua's contended reply ({@code {0, token, ttl, 0}}) that an acquisition over the quorum
 * answers when it was not granted, built from phase 1's answers: the holder a majority named, or a
 * random back-off after a split vote (see {@link NotGranted}). Stateless.
 */
final class ContendedReplies {

    /** The largest random back-off after a split vote, ms. */
    static final long MAX_BACKOFF_MS = 50;

    private ContendedReplies() {}

    /**
     * The reply naming the holder that at least {@code majority} of phase 1's contended replies named (by
     * token: a committed lease has one token on every member), with its least TTL; null if none did (a
     * split vote).
     */
    static @Nullable List<Object> majorityHolder(List<Tally.Answer> phase1, int majority) {
        Map<Long, List<Long>> ttlsByToken = new HashMap<>();
        for (Tally.Answer a : contended(phase1)) {
            List<?> reply = Replies.list(a.reply(), "acquire");
            long token = Replies.asLong(reply.get(1), "acquire");
            ttlsByToken.computeIfAbsent(token, k -> new ArrayList<>()).add(Replies.asLong(reply.get(2), "acquire"));
        }
        for (Map.Entry<Long, List<Long>> holder : ttlsByToken.entrySet()) {
            if (holder.getValue().size() >= majority) {
                long ttl = holder.getValue().stream()
                        .mapToLong(Long::longValue)
                        .min()
                        .orElse(1);
                // a holder whose key has no TTL (-1) is passed on as such: the engine then waits for its
                // release message, with its own long fallback, instead of asking every few ms
                return List.of(0L, holder.getKey(), ttl < 0 ? -1L : Math.max(ttl, 1), 0L);
            }
        }
        return null;
    }

    /** The reply after a split vote: the largest token seen, and a random back-off as the TTL. */
    static List<Object> splitVote(List<Tally.Answer> phase1) {
        long maxToken = 0;
        for (Tally.Answer a : contended(phase1)) {
            maxToken = Math.max(
                    maxToken, Replies.asLong(Replies.list(a.reply(), "acquire").get(1), "acquire"));
        }
        long backoff = ThreadLocalRandom.current().nextLong(1, MAX_BACKOFF_MS + 1);
        return List.of(0L, maxToken, backoff, 0L);
    }

    private static List<Tally.Answer> contended(List<Tally.Answer> phase1) {
        return phase1.stream()
                .filter(a -> !a.failed() && Replies.status(a.reply(), 1) == 0)
                .toList();
    }
}
