package io.leasehold.lock.quorum;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The configuration rules on one enlistment's probe answers: members that are one server (the same
 * run_id), members that may evict (maxmemory above 0 with a policy other than noeviction); answers that
 * are none of the script's replies are not judged.
 */
class MemberConfigCheckTest {

    private final Members stores = new Members(4);
    private final QuorumMembers members = QuorumMembers.of(Members.backends(stores));
    private final MemberConfigCheck check = new MemberConfigCheck(members);

    @AfterEach
    void close() {
        stores.close();
    }

    private static List<Object> probe(String run, String maxmemory, String policy) {
        return List.of(4L, "0", 0L, "300000", run, maxmemory, policy);
    }

    @Test
    void shouldNameEachPairOfMembersThatAreOneServerOnce() {
        List<List<String>> refusals = check.refusals(List.of(
                probe("aa", "0", "noeviction"),
                probe("bb", "0", "noeviction"),
                probe("aa", "0", "noeviction"),
                probe("aa", "0", "noeviction")));

        String pair02 = "a quorum's members must be distinct Redis servers, but members 0 (" + members.get(0)
                + ") and 2 (" + members.get(2) + ") are the same server (run_id aa)";
        String pair03 = "a quorum's members must be distinct Redis servers, but members 0 (" + members.get(0)
                + ") and 3 (" + members.get(3) + ") are the same server (run_id aa)";
        assertEquals(List.of(pair02, pair03), refusals.get(0));
        assertEquals(List.of(), refusals.get(1));
        assertEquals(List.of(pair02), refusals.get(2));
        assertEquals(List.of(pair03), refusals.get(3));
        assertTrue(MemberConfigCheck.anyRefused(refusals));
    }

    @Test
    void shouldRefuseAMemberThatMayEvictWhateverItsPolicyButNoeviction() {
        for (String policy :
                List.of("allkeys-lru", "allkeys-lfu", "allkeys-random", "volatile-lru", "volatile-ttl", "")) {
            assertTrue(MemberConfigCheck.mayEvict("104857600", policy), policy);
        }
        assertFalse(MemberConfigCheck.mayEvict("104857600", "noeviction"), "noeviction never evicts");
        assertFalse(MemberConfigCheck.mayEvict("0", "allkeys-lru"), "maxmemory 0: no limit, nothing evicted");

        List<List<String>> refusals = check.refusals(List.of(
                probe("aa", "0", "noeviction"),
                probe("bb", "104857600", "volatile-lru"),
                probe("cc", "0", "allkeys-lru"),
                probe("dd", "104857600", "noeviction")));

        assertEquals(
                List.of("member 1 (" + members.get(1) + ") may evict lock keys: maxmemory 104857600 with"
                        + " maxmemory-policy volatile-lru; a quorum member must use maxmemory-policy noeviction or"
                        + " maxmemory 0"),
                refusals.get(1));
        assertEquals(
                List.of(List.of(), List.of(), List.of()), List.of(refusals.get(0), refusals.get(2), refusals.get(3)));
    }

    @Test
    void shouldNotJudgeAMemberThatDidNotAnswerOrWhoseRecordKeyIsForeign() {
        List<Object> foreign = List.of(-2L, 0L, 0L, 0L, "", "key 'p:quorum' holds a value ...");
        List<List<String>> refusals = check.refusals(
                Arrays.asList(probe("aa", "0", "noeviction"), null, foreign, probe("bb", "0", "noeviction")));

        assertFalse(MemberConfigCheck.anyRefused(refusals), () -> "nothing refused: " + refusals);
    }

    @Test
    void shouldTellEachRuleOnceWhenARefusedMemberBreaksTwo() {
        Roster roster = new Roster(4);
        List<List<String>> refusals = check.refusals(List.of(
                probe("aa", "104857600", "allkeys-lru"),
                probe("bb", "0", "noeviction"),
                probe("aa", "104857600", "allkeys-lru"),
                probe("cc", "0", "noeviction")));
        for (int i = 0; i < 4; i++) {
            if (!refusals.get(i).isEmpty()) {
                roster.refused(i, refusals.get(i), System.nanoTime());
            }
        }

        String refusal = roster.refusal();

        assertEquals(1, refusal.split("are the same server", -1).length - 1, refusal);
        assertTrue(refusal.contains("member 0 (" + members.get(0) + ") may evict lock keys"), refusal);
        assertTrue(refusal.contains("member 2 (" + members.get(2) + ") may evict lock keys"), refusal);
        roster.takesPart(0);
        roster.takesPart(2);
        assertEquals(null, roster.refusal(), "refused no longer once enlisted otherwise");
    }
}
