package io.leasehold.lock.quorum;

import java.util.ArrayList;
import java.util.List;

/**
 * The configuration rules a quorum's members must keep, checked on the answers of one enlistment's
 * probes (quorum-enlist.lua's {@code {standing, floor, wait, lease, run, maxmemory, policy}}), each
 * broken rule named with the offending members (docs/design/quorum-locks.md, "Configuration"):
 *
 * <ul>
 *   <li><b>distinct servers</b>: two members whose probes answer the same {@code run_id} are one
 *       server under two backends (two addresses of it, two clients): its vote would count twice
 *       toward a majority;</li>
 *   <li><b>no eviction</b> (risk R1): a member whose {@code maxmemory} is above 0 with a
 *       {@code maxmemory-policy} other than {@code noeviction} may evict a lease key (each has a TTL,
 *       so the {@code volatile-*} policies too) and lose a lock silently.</li>
 * </ul>
 *
 * <p>Stateless; threadsafe.
 */
final class MemberConfigCheck {

    /** The only policy under which a member whose maxmemory is above 0 evicts nothing. */
    static final String NO_EVICTION = "noeviction";

    /** How many entries quorum-enlist.lua's reply has. */
    static final int REPLY_SIZE = 7;

    private static final int RUN = 4;
    private static final int MAXMEMORY = 5;
    private static final int POLICY = 6;

    private final QuorumMembers members;

    MemberConfigCheck(QuorumMembers members) {
        this.members = members;
    }

    /**
     * The rules each member breaks, by member index, each naming the member, without the lock (e.g.
     * "member 1 (...) may evict lock keys: ..."): empty where it breaks none or did not answer with the
     * script's reply (a null answer: it did not answer; fewer than {@value #REPLY_SIZE} entries: a foreign
     * record key). The rule a pair that is one server breaks is listed for both members, the same text.
     */
    List<List<String>> refusals(List<? extends List<?>> answers) {
        List<List<String>> broken = new ArrayList<>();
        for (int i = 0; i < answers.size(); i++) {
            broken.add(new ArrayList<>());
        }
        for (int j = 0; j < answers.size(); j++) {
            String run = field(answers.get(j), RUN);
            for (int i = 0; i < j && run != null && !run.isEmpty(); i++) {
                if (run.equals(field(answers.get(i), RUN))) {
                    String same = String.format(
                            "a quorum's members must be distinct Redis servers, but members %d (%s) and %d (%s) are"
                                    + " the same server (run_id %s)",
                            i, members.get(i), j, members.get(j), run);
                    broken.get(i).add(same);
                    broken.get(j).add(same);
                    break; // the first earlier member of the same server names the pair
                }
            }
            String maxmemory = field(answers.get(j), MAXMEMORY);
            String policy = field(answers.get(j), POLICY);
            if (maxmemory != null && policy != null && mayEvict(maxmemory, policy)) {
                broken.get(j)
                        .add(String.format(
                                "member %d (%s) may evict lock keys: maxmemory %s with maxmemory-policy %s; a quorum"
                                        + " member must use maxmemory-policy %s or maxmemory 0",
                                j, members.get(j), maxmemory, policy, NO_EVICTION));
            }
        }
        return broken.stream().map(List::copyOf).toList();
    }

    /** True when at least one member breaks a rule. */
    static boolean anyRefused(List<List<String>> refusals) {
        return refusals.stream().anyMatch(r -> !r.isEmpty());
    }

    /**
     * Whether a server with {@code maxmemory} (bytes, as INFO tells it) and {@code policy} may evict keys:
     * unless its maxmemory is 0 (no limit) or its policy is noeviction. A value INFO did not tell
     * ({@code ''}) counts as one that may evict.
     */
    static boolean mayEvict(String maxmemory, String policy) {
        return !maxmemory.equals("0") && !policy.equals(NO_EVICTION);
    }

    /**
     * Entry {@code index} of a probe's answer as text; null when it is none of the script's replies (a
     * member that did not answer, or {@link QuorumEnlistment}'s answer for a foreign record key).
     */
    private static String field(List<?> answer, int index) {
        return answer == null || answer.size() < REPLY_SIZE ? null : String.valueOf(answer.get(index));
    }
}
