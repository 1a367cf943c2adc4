package io.leasehold.lock.inmemory;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * quorum-restore.lua, emulated line for line (see its header): on one node of a quorum, puts back the
 * leases that a majority confirms and this node lost, where the name is free and no later lease was
 * committed here. Called by {@link ScriptEmulator} under the store's lock, so each call is atomic as a
 * script is.
 */
final class QuorumRestoreEmulator {

    private static final int RECORD = 1;
    /** The script's {@code '^[^:]+:(%d+):%d+$'}. */
    private static final Pattern VALUE = Pattern.compile("[^:]+:([0-9]+):[0-9]+");

    private static final Pattern DIGITS = Pattern.compile("[0-9]+");

    private final InMemoryStore store;

    QuorumRestoreEmulator(InMemoryStore store) {
        this.store = store;
    }

    Object restore(ScriptCall c) {
        int n = c.keyCount() - 1;
        List<Long> tokens = new ArrayList<>(n);
        List<String> texts = new ArrayList<>(n);
        for (int i = 1; i <= n; i++) {
            String value = c.arg(2 * i - 1);
            String lease = c.arg(2 * i);
            Matcher m = value == null ? null : VALUE.matcher(value);
            if (m == null || !m.matches() || !ScriptEmulator.isCounter(m.group(1))) {
                throw c.error(
                        "ERR value of lease " + i + " must be '<owner>:<token>:<seq>' with a decimal token below"
                                + " 2^53 - 1, but was '" + (value == null ? "nil" : value) + "'",
                        "ARGV[" + (2 * i - 1) + "]");
            }
            if (lease == null
                    || !DIGITS.matcher(lease).matches()
                    || lease.replaceFirst("^0+", "").isEmpty()) {
                throw c.error(
                        "ERR lease of lease " + i + " must be a positive integer of ms, but was '"
                                + (lease == null ? "nil" : lease) + "'",
                        "ARGV[" + 2 * i + "]");
            }
            tokens.add(Long.parseLong(m.group(1)));
            texts.add(m.group(1));
        }
        long now = c.nowMillis();
        String record = c.key(RECORD);
        String run;
        String seeded;
        String floor;
        try {
            run = store.hget(record, "run", now);
            seeded = store.hget(record, "seeded", now);
            floor = store.hget(record, "floor", now);
        } catch (InMemoryStore.WrongTypeException e) {
            throw c.error(
                    "ERR key '" + record + "' holds a value that is not a Leasehold quorum record (a "
                            + store.type(record, now) + ", not a hash)",
                    "KEYS[1]");
        }
        if (floor != null && !ScriptEmulator.isCounter(floor)) {
            throw c.error(
                    "ERR key '" + record + "' holds a value that is not a Leasehold quorum record (its 'floor' is '"
                            + floor + "', not a decimal integer below 2^53 - 1)",
                    "KEYS[1]");
        }
        if (!store.runId().equals(run) || !"1".equals(seeded)) {
            return List.of(-2L);
        }
        long highest = floor == null ? 0 : Long.parseLong(floor);
        List<Long> codes = new ArrayList<>(n);
        for (int i = 1; i <= n; i++) {
            long token = tokens.get(i - 1);
            String key = c.key(1 + i);
            if (!store.exists(key, now)) {
                store.setPx(key, c.arg(2 * i - 1), c.integerArg(2 * i, "SET"), now);
                codes.add(1L);
                if (token > highest) {
                    highest = token;
                    store.hset(record, "floor", texts.get(i - 1), now);
                }
            } else {
                codes.add(0L);
            }
        }
        return List.of(List.copyOf(codes));
    }
}
