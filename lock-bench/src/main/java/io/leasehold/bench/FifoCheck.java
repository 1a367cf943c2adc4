package io.leasehold.bench;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Checks that a fair lock went first in, first out, from what a {@link FifoAudit} saw of it in
 * Redis: samples of its wait queue (each read in one step with the lock's holder and the last
 * fencing token handed out) and the grant messages of its release channel, in the order published.
 *
 * <p>The fencing token puts grants and samples in one order: a grant whose token is at most a
 * sample's last token came before that sample, any other after it. A place is a waiter's owner with
 * its ticket; a place seen in two samples with the same ticket waited in the queue all the time
 * between (a place that lapses and is taken again gets a new ticket). Each broken rule counts as
 * one violation:
 *
 * <ol>
 *   <li><b>No grant overtakes a waiter.</b> A grant (a message, or a holder that a sample finds with
 *       a token new since the sample before) overtook a waiter if the waiter's place was ahead of
 *       the grantee's in the last sample before the grant (all of that sample's places are, if the
 *       grantee had none there) and the waiter was still waiting after the grant: its place, same
 *       ticket, is in the first sample after the grant, or its own grant came later. So, among the
 *       owners of one sample granted later, the tokens must rise along the queue.</li>
 *   <li><b>Enqueue appends at the tail.</b> A place new in a sample has a ticket above every ticket
 *       of the sample before.</li>
 *   <li><b>Grant tokens rise in message order.</b></li>
 * </ol>
 *
 * <p>A <em>checked</em> grant is one whose last sample before it showed another waiter than its
 * grantee: one that could have overtaken somebody seen. What the check cannot see: grants before
 * the first sample or after the last; a grant taken without a message (a head that finds the lock
 * free takes it itself) unless a sample finds its holder; a waiter that joined and left between two
 * samples; a waiter that left between two samples without a message (granted silently, gave up, its
 * place lapsed) is taken to have left in time; a place that lapsed, was taken again and granted
 * between two samples is taken for its old place. It checks the order of places in Redis's queue,
 * not the order in which threads called acquire (a waiter's place dates from when its call reached
 * Redis).
 */
final class FifoCheck {

    /** A waiter's place in the queue: its owner and its ticket (the enqueue order). */
    record Place(String owner, long ticket) {}

    /** The lock granted to {@code owner} with fencing token {@code token}. */
    record Grant(String owner, long token) {}

    /**
     * One read of the queue: its places (kept in ticket order), the lock's holder then (null when
     * free) and the last fencing token handed out by then (0 for none).
     */
    record Sample(long lastToken, Grant holder, List<Place> queue) {
        Sample {
            queue = queue.stream()
                    .sorted(Comparator.comparingLong(Place::ticket))
                    .toList();
        }
    }

    /** How many grants the check covered, how many rules were broken, and the first few broken, told. */
    record Result(long checkedGrants, long violations, List<String> examples) {}

    private static final int EXAMPLES = 5;

    private final List<Sample> samples;
    private final List<Grant> messages;
    private long violations;
    private final List<String> examples = new ArrayList<>();

    private FifoCheck(List<Sample> samples, List<Grant> messages) {
        this.samples = samples;
        this.messages = messages;
    }

    /** Checks {@code samples} (in the order read) against the grant {@code messages} (in the order heard). */
    static Result check(List<Sample> samples, List<Grant> messages) {
        FifoCheck check = new FifoCheck(samples, messages);
        check.tokensRiseInMessageOrder();
        check.enqueuesAppendAtTheTail();
        long checked = check.noGrantOvertakesAWaiter();
        return new Result(checked, check.violations, List.copyOf(check.examples));
    }

    private void tokensRiseInMessageOrder() {
        for (int i = 1; i < messages.size(); i++) {
            if (messages.get(i).token() <= messages.get(i - 1).token()) {
                violation(
                        "grant message %d (to %s) has token %d, not above the one before (%d)",
                        i,
                        shortId(messages.get(i).owner()),
                        messages.get(i).token(),
                        messages.get(i - 1).token());
            }
        }
    }

    private void enqueuesAppendAtTheTail() {
        for (int i = 1; i < samples.size(); i++) {
            List<Place> before = samples.get(i - 1).queue();
            if (before.isEmpty()) {
                continue;
            }
            Set<Place> seen = new HashSet<>(before);
            long tail = before.get(before.size() - 1).ticket();
            for (Place place : samples.get(i).queue()) {
                if (!seen.contains(place) && place.ticket() <= tail) {
                    violation(
                            "%s joined with ticket %d, not behind the tail of the sample before (ticket %d)",
                            shortId(place.owner()), place.ticket(), tail);
                }
            }
        }
    }

    private long noGrantOvertakesAWaiter() {
        if (samples.size() < 2) {
            return 0;
        }
        long[] lastTokens = samples.stream().mapToLong(Sample::lastToken).toArray();
        Map<String, List<Long>> tokensByOwner = new HashMap<>();
        List<Grant> grants = grantsSeen();
        grants.forEach(g ->
                tokensByOwner.computeIfAbsent(g.owner(), o -> new ArrayList<>()).add(g.token()));
        long checked = 0;
        for (Grant grant : grants) {
            int before = lastSampleBefore(lastTokens, grant.token());
            if (before < 0 || before == samples.size() - 1) {
                continue; // not between two samples
            }
            Sample earlier = samples.get(before);
            if (earlier.queue().stream().allMatch(place -> place.owner().equals(grant.owner()))) {
                continue; // nobody else seen waiting: nobody to overtake
            }
            checked++;
            long granteeTicket = ticketIn(earlier, grant.owner(), Long.MAX_VALUE);
            for (Place ahead : earlier.queue()) {
                if (ahead.ticket() >= granteeTicket) {
                    break;
                }
                if (stillWaiting(ahead, earlier, samples.get(before + 1), grant.token(), tokensByOwner)) {
                    violation(
                            "grant to %s (token %d) overtook %s (ticket %d), still waiting after it",
                            shortId(grant.owner()), grant.token(), shortId(ahead.owner()), ahead.ticket());
                    break; // one violation per grant
                }
            }
        }
        return checked;
    }

    /** The grant messages, and the holders samples found with a token new since the sample before that no message named; by token. */
    private List<Grant> grantsSeen() {
        Set<Long> announced = new HashSet<>();
        List<Grant> grants = new ArrayList<>(messages);
        messages.forEach(m -> announced.add(m.token()));
        for (int i = 1; i < samples.size(); i++) {
            Grant holder = samples.get(i).holder();
            if (holder != null
                    && holder.token() > samples.get(i - 1).lastToken()
                    && !announced.contains(holder.token())) {
                grants.add(holder);
            }
        }
        grants.sort(Comparator.comparingLong(Grant::token));
        return grants;
    }

    /**
     * Whether place {@code ahead} of sample {@code earlier} still waited after the grant with
     * {@code token}: it is in {@code later} (the first sample after that grant) with the same ticket,
     * or it is not there at all and its owner's first grant since {@code earlier} came after.
     */
    private static boolean stillWaiting(
            Place ahead, Sample earlier, Sample later, long token, Map<String, List<Long>> tokensByOwner) {
        long ticketLater = ticketIn(later, ahead.owner(), -1);
        if (ticketLater >= 0) {
            // the same place waits on; another ticket: it lapsed and was taken again, and its grant
            // (if any) cannot be told from this place's
            return ticketLater == ahead.ticket();
        }
        for (long own : tokensByOwner.getOrDefault(ahead.owner(), List.of())) {
            if (own > earlier.lastToken()) {
                return own > token; // (the list is in token order: its first grant since)
            }
        }
        return false;
    }

    /** The index of the last sample whose last token is below {@code token} (read before that grant); -1 if none. */
    private static int lastSampleBefore(long[] lastTokens, long token) {
        int low = 0;
        int high = lastTokens.length - 1;
        int found = -1;
        while (low <= high) {
            int middle = (low + high) >>> 1;
            if (lastTokens[middle] < token) {
                found = middle;
                low = middle + 1;
            } else {
                high = middle - 1;
            }
        }
        return found;
    }

    private static long ticketIn(Sample sample, String owner, long absent) {
        for (Place place : sample.queue()) {
            if (place.owner().equals(owner)) {
                return place.ticket();
            }
        }
        return absent;
    }

    private void violation(String format, Object... args) {
        violations++;
        if (examples.size() < EXAMPLES) {
            examples.add(String.format(java.util.Locale.ROOT, format, args));
        }
    }

    /** An owner id shortened for a message: 32 hex characters tell no more than their first 8. */
    private static String shortId(String owner) {
        return owner.length() > 8 ? owner.substring(0, 8) : owner;
    }
}
