package io.leasehold.lock.inmemory;

import java.util.List;
import java.util.regex.Pattern;

/**
 * quorum-commit.lua and quorum-enlist.lua, emulated line for line (see their headers): phase 2 of an
 * acquisition over a quorum of independent masters, which makes the quorum's token the lock's, above
 * the node's floor (the largest token committed on it), and raises the fencing counter and the floor to
 * it, on a node that takes part; and a node's standing, with the steps that bring it back after it lost
 * its data ({@link InMemoryStore#restart()} gives it a new run id). Called by {@link ScriptEmulator}
 * under the store's lock, so each call is atomic as a script is.
 */
final class QuorumScriptEmulator {

    private static final int LOCK = 1;
    private static final int COUNTER = 2;
    private static final int RECORD = 3;
    private static final String FLOOR = "floor";
    private static final String RUN = "run";
    private static final String SEEDED = "seeded";
    private static final String OUT = "out";
    private static final String LEASE = "lease";
    /** INFO memory's maxmemory of a store that never evicts. */
    private static final String MAXMEMORY = "0";
    /** INFO memory's maxmemory_policy of a store that never evicts. */
    private static final String POLICY = "noeviction";

    private static final Pattern DIGITS = Pattern.compile("[0-9]+");

    private final InMemoryStore store;
    private final ScriptEmulator scripts;

    QuorumScriptEmulator(InMemoryStore store, ScriptEmulator scripts) {
        this.store = store;
        this.scripts = scripts;
    }

    /** Lua's {@code tonumber(text) > 0} for ASCII digits (any length: Lua reads a long one as a double). */
    private static boolean positive(String digits) {
        return !digits.replaceFirst("^0+", "").isEmpty();
    }

    Object commit(ScriptCall c) {
        String quorumText = c.arg(2);
        if (quorumText == null || !ScriptEmulator.isCounter(quorumText)) {
            throw c.error(
                    "ERR quorum token must be a decimal integer below 2^53 - 1, but was '"
                            + (quorumText == null ? "nil" : quorumText) + "'",
                    "ARGV[2]");
        }
        long quorumToken = Long.parseLong(quorumText);
        String granted = c.requiredArg(1);
        int sep = granted.indexOf(':');
        String grantedToken = sep < 0 ? null : granted.substring(sep + 1);
        if (grantedToken == null
                || !ScriptEmulator.isCounter(grantedToken)
                || Long.parseLong(grantedToken) == quorumToken) {
            throw c.error(
                    "ERR expected value must be '<owner>:<token>' with a token other than the quorum token "
                            + quorumText
                            + ", but was '" + granted + "'",
                    "ARGV[1]");
        }
        String counterTtl = c.arg(3);
        if (counterTtl == null || !DIGITS.matcher(counterTtl).matches() || !positive(counterTtl)) {
            throw c.error(
                    "ERR counter idle TTL must be a positive integer of ms, but was '"
                            + (counterTtl == null ? "nil" : counterTtl) + "'",
                    "ARGV[3]");
        }
        String largestLease = c.arg(4);
        if (largestLease == null || !ScriptEmulator.isCounter(largestLease) || !positive(largestLease)) {
            throw c.error(
                    "ERR largest lease must be a positive integer of ms, but was '"
                            + (largestLease == null ? "nil" : largestLease) + "'",
                    "ARGV[4]");
        }
        String lease = c.arg(5);
        if (lease != null && (!ScriptEmulator.isCounter(lease) || !positive(lease))) {
            throw c.error("ERR lease must be a positive integer of ms, but was '" + lease + "'", "ARGV[5]");
        }
        String committed = granted.substring(0, sep) + ":" + quorumText;

        ScriptEmulator.Get current = scripts.pcallGet(c, LOCK);
        if (current.wrongType()) {
            throw scripts.foreign(c, LOCK, "lock", "a string '<owner>:<token>'");
        }
        if (current.value() != null && current.value().indexOf(':') < 0) {
            throw scripts.foreign(c, LOCK, "lock", "'<owner>:<token>'");
        }
        ScriptEmulator.Get counter = scripts.pcallGet(c, COUNTER);
        if (counter.wrongType()) {
            throw scripts.foreign(c, COUNTER, "fencing counter", "a string holding a decimal integer");
        }
        if (counter.value() != null && !ScriptEmulator.isCounter(counter.value())) {
            throw scripts.foreign(c, COUNTER, "fencing counter", "a decimal integer below 2^53 - 1");
        }
        String run;
        String seeded;
        String floor;
        String recordLease;
        try {
            run = store.hget(c.key(RECORD), RUN, c.nowMillis());
            seeded = store.hget(c.key(RECORD), SEEDED, c.nowMillis());
            floor = store.hget(c.key(RECORD), FLOOR, c.nowMillis());
            recordLease = store.hget(c.key(RECORD), LEASE, c.nowMillis());
        } catch (InMemoryStore.WrongTypeException e) {
            throw scripts.foreign(c, RECORD, "quorum record", "a hash");
        }
        if (floor != null && !ScriptEmulator.isCounter(floor)) {
            throw scripts.foreign(
                    c, RECORD, "quorum record", "a hash whose 'floor' is a decimal integer below 2^53 - 1");
        }
        if (!store.runId().equals(run) || !"1".equals(seeded)) {
            return List.of(-2L);
        }
        if (!largestLease.equals(recordLease)) {
            return List.of(-3L, recordLease == null ? "0" : recordLease);
        }

        if (current.value() == null
                || !(current.value().equals(granted) || current.value().equals(committed))) {
            return List.of(0L);
        }
        if (!current.value().equals(committed) && floor != null && Long.parseLong(floor) >= quorumToken) {
            return List.of(-1L, floor);
        }
        if (lease != null) {
            scripts.setPx(c, LOCK, committed, 5, "lease");
        } else {
            store.setKeepTtl(c.key(LOCK), committed, c.nowMillis());
        }
        if (counter.value() == null || Long.parseLong(counter.value()) < quorumToken) {
            scripts.setPx(c, COUNTER, quorumText, 3, "counter idle TTL");
        } else {
            scripts.pexpire(c, COUNTER, 3);
        }
        if (floor == null || Long.parseLong(floor) < quorumToken) {
            store.hset(c.key(RECORD), FLOOR, quorumText, c.nowMillis());
        }
        return List.of(1L, store.pttl(c.key(LOCK), c.nowMillis()));
    }

    /** quorum-enlist.lua: see its header. */
    Object enlist(ScriptCall c) {
        String step = c.arg(1);
        if (!List.of("probe", "join", "reset", "seed").contains(step)) {
            throw c.error(
                    "ERR step must be 'probe', 'join', 'reset' or 'seed', but was '" + (step == null ? "nil" : step)
                            + "'",
                    "ARGV[1]");
        }
        String value = c.arg(2);
        if (!step.equals("probe") && (value == null || !ScriptEmulator.isCounter(value))) {
            throw c.error(
                    "ERR " + (step.equals("reset") ? "delay" : "floor")
                            + " must be a decimal integer below 2^53 - 1, but was '" + (value == null ? "nil" : value)
                            + "'",
                    "ARGV[2]");
        }
        String largest = c.arg(3);
        if ((step.equals("join") || step.equals("reset"))
                && (largest == null || !ScriptEmulator.isCounter(largest) || !positive(largest))) {
            throw c.error(
                    "ERR largest lease must be a positive integer of ms, but was '"
                            + (largest == null ? "nil" : largest) + "'",
                    "ARGV[3]");
        }
        String fourth = c.arg(4);
        if (step.equals("reset") && (fourth == null || !ScriptEmulator.isCounter(fourth))) {
            throw c.error(
                    "ERR floor must be a decimal integer below 2^53 - 1, but was '" + (fourth == null ? "nil" : fourth)
                            + "'",
                    "ARGV[4]");
        }
        List<Object> standing = standing(c);
        long state = (Long) standing.get(0);
        String floor = (String) standing.get(1);
        String record = c.key(1);
        long now = c.nowMillis();
        if (step.equals("join") && state == 0 && store.runId().equals(fourth)) {
            store.hset(record, RUN, store.runId(), now);
            store.hset(record, SEEDED, "1", now);
            store.hset(record, OUT, "0", now);
            store.hset(record, FLOOR, value, now);
            store.hset(record, LEASE, largest, now);
        } else if (step.equals("reset") && state <= 1) {
            store.hset(record, RUN, store.runId(), now);
            store.hset(record, SEEDED, "0", now);
            store.hset(record, OUT, Long.toString(now + Long.parseLong(value)), now);
            store.hset(record, FLOOR, Long.parseLong(fourth) > Long.parseLong(floor) ? fourth : floor, now);
            store.hset(record, LEASE, largest, now);
        } else if (step.equals("seed") && state == 3) {
            if (Long.parseLong(value) > Long.parseLong(floor)) {
                store.hset(record, FLOOR, value, now);
            }
            store.hset(record, SEEDED, "1", now);
        } else {
            return standing;
        }
        return standing(c);
    }

    /**
     * quorum-enlist.lua's {@code read()}: {standing, floor, wait, lease, run, maxmemory, policy}; this
     * store never evicts, so it answers maxmemory {@code "0"} and policy {@code "noeviction"}.
     */
    private List<Object> standing(ScriptCall c) {
        String key = c.key(1);
        long now = c.nowMillis();
        String run;
        String seeded;
        String out;
        String floor;
        String lease;
        try {
            lease = store.hget(key, LEASE, now);
            run = store.hget(key, RUN, now);
            seeded = store.hget(key, SEEDED, now);
            out = store.hget(key, OUT, now);
            floor = store.hget(key, FLOOR, now);
        } catch (InMemoryStore.WrongTypeException e) {
            throw c.error(
                    "ERR key '" + key + "' holds a value that is not a Leasehold quorum record (a "
                            + store.type(key, now) + ", not a hash)",
                    "KEYS[1]");
        }
        if (floor == null) {
            floor = "0";
        }
        if (!ScriptEmulator.isCounter(floor)) {
            throw c.error(
                    "ERR key '" + key + "' holds a quorum record whose 'floor' is not a decimal integer below"
                            + " 2^53 - 1: '" + floor + "'",
                    "KEYS[1]");
        }
        String largest = lease == null ? "0" : lease;
        String run0 = store.runId();
        if (!store.exists(key, now)) {
            return List.of(0L, floor, 0L, largest, run0, MAXMEMORY, POLICY);
        }
        if (!store.runId().equals(run)) {
            return List.of(1L, floor, 0L, largest, run0, MAXMEMORY, POLICY);
        }
        if ("1".equals(seeded)) {
            return List.of(4L, floor, 0L, largest, run0, MAXMEMORY, POLICY);
        }
        long outUntil = out != null && DIGITS.matcher(out).matches() && out.length() < 16 ? Long.parseLong(out) : 0;
        if (now < outUntil) {
            return List.of(2L, floor, outUntil - now, largest, run0, MAXMEMORY, POLICY);
        }
        return List.of(3L, floor, 0L, largest, run0, MAXMEMORY, POLICY);
    }
}
