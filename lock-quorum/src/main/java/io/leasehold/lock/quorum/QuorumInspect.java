package io.leasehold.lock.quorum;

import io.leasehold.lock.spi.LuaScript;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * inspect.lua over the quorum: the majority's view. Held only when at least M members report the same
 * holder's token (every member of a committed lease holds {@code <owner>:<T>}), with the smallest TTL
 * of those; else not held ({@code {}}). The answer waits for every member, or for a majority and then
 * at most the grace for the rest; it fails when fewer than M answered (see
 * {@link QuorumMembers#noMajority}; a key that is not a Leasehold lock fails every member alike, and
 * that error is passed on).
 *
 * <p>The design compares by owner (R14); inspect.lua tells the token, not the owner, and a committed
 * lease has the same token on every member, so the token stands for it here.
 *
 * <p><b>Threads.</b> Never blocks. This class is threadsafe.
 */
final class QuorumInspect {

    private final QuorumMembers members;
    private final Duration grace;

    QuorumInspect(QuorumMembers members, Duration grace) {
        this.members = members;
        this.grace = grace;
    }

    CompletableFuture<Object> inspect(LuaScript script, List<String> keys, List<String> args) {
        String lockKey = keys.isEmpty() ? "(none)" : keys.get(0);
        return members.fanOut(script, keys, args, -1, a -> !a.failed(), grace, late -> {})
                .outcome()
                .thenApply(answers -> {
                    Map<String, Long> minTtl = new HashMap<>();
                    Map<String, Integer> votes = new HashMap<>();
                    int answered = 0;
                    for (Tally.Answer a : answers) {
                        if (a.failed()) {
                            continue;
                        }
                        answered++;
                        List<?> reply = Replies.list(a.reply(), "inspect");
                        if (reply.isEmpty()) {
                            continue;
                        }
                        String token = String.valueOf(reply.get(0));
                        long ttl = Replies.asLong(reply.get(1), "inspect");
                        votes.merge(token, 1, Integer::sum);
                        minTtl.merge(token, ttl, Math::min);
                    }
                    if (answered < members.majority()) {
                        throw new CompletionException(members.noMajority(lockKey, "inspect", answers));
                    }
                    for (Map.Entry<String, Integer> holder : votes.entrySet()) {
                        if (holder.getValue() >= members.majority()) {
                            return List.of(holder.getKey(), minTtl.get(holder.getKey()));
                        }
                    }
                    return List.of();
                });
    }
}
