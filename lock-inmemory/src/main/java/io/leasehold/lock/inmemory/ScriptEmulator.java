package io.leasehold.lock.inmemory;

import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.spi.ScriptNames;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The bundled Lua scripts, transliterated line by line into Java over an {@link InMemoryStore}:
 * same commands in the same order, same replies, and — as in Redis — no rollback of the writes
 * made before a script fails.
 *
 * <p>Not threadsafe: {@link #run} must be called holding the store's monitor.
 */
final class ScriptEmulator {

    private static final String RELEASED = "released";
    private static final Pattern DIGITS = Pattern.compile("[0-9]+");
    private static final Pattern LUA_DECIMAL = Pattern.compile("[-+]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][-+]?[0-9]+)?");
    private static final Pattern LUA_HEX = Pattern.compile("0[xX][0-9a-fA-F]{1,16}");
    /** 2^53 - 1: a counter must stay below it, so that counter + 1 is exact in a Lua double. */
    private static final long MAX_EXACT_COUNTER = (1L << 53) - 1;
    /** Name → SHA-1 of the bundled source, so that a foreign script of the same name is refused. */
    private static final Map<String, String> BUNDLED = bundledShas();

    private final InMemoryStore store;
    private final PubSubHub hub;
    private final QueueScriptEmulator queue;
    private final QuorumScriptEmulator quorum;
    private final QuorumRestoreEmulator restore;
    private final QuorumFairAcquireEmulator fairAcquire;

    ScriptEmulator(InMemoryStore store, PubSubHub hub) {
        this.store = store;
        this.hub = hub;
        this.queue = new QueueScriptEmulator(store, this);
        this.quorum = new QuorumScriptEmulator(store, this);
        this.restore = new QuorumRestoreEmulator(store);
        this.fairAcquire = new QuorumFairAcquireEmulator(store, this, queue);
    }

    /**
     * Checks that {@code script} is one of the bundled scripts, the only ones this backend can run.
     *
     * @throws UnsupportedOperationException naming the script otherwise
     */
    static void requireBundled(LuaScript script) {
        String sha1 = BUNDLED.get(script.name());
        if (sha1 == null) {
            throw new UnsupportedOperationException("the in-memory backend cannot run script '" + script.name()
                    + "': it emulates only the bundled scripts " + ScriptNames.ALL);
        }
        if (!sha1.equals(script.sha1())) {
            throw new UnsupportedOperationException("the in-memory backend cannot run script '" + script.name()
                    + "' with sha1 " + script.sha1() + ": it emulates only the bundled source, sha1 " + sha1);
        }
    }

    /** Runs the emulation of {@code script}, which {@link #requireBundled} accepted. */
    Object run(String script, ScriptCall call) {
        return switch (script) {
            case ScriptNames.ACQUIRE -> queue.acquire(call);
            case ScriptNames.HANDOFF -> queue.handoff(call);
            case ScriptNames.RELEASE -> queue.release(call);
            case ScriptNames.RENEW -> renew(call);
            case ScriptNames.EXTEND -> extend(call);
            case ScriptNames.INSPECT -> inspect(call);
            case ScriptNames.FORCE_RELEASE -> forceRelease(call);
            case ScriptNames.QUORUM_COMMIT -> quorum.commit(call);
            case ScriptNames.QUORUM_ENLIST -> quorum.enlist(call);
            case ScriptNames.QUORUM_RESTORE -> restore.restore(call);
            case ScriptNames.QUORUM_FAIR_ACQUIRE -> fairAcquire.acquire(call);
            default -> throw new UnsupportedOperationException("no emulation of script '" + script + "'");
        };
    }

    /**
     * The scripts' shared block "read": GET KEYS[1] (pcall), refused when not a Leasehold lock; the
     * lock value, or null when absent.
     */
    LockValue readLock(ScriptCall c) {
        Get current = pcallGet(c, 1);
        if (current.wrongType()) {
            throw foreign(c, 1, "lock", "a string '<owner>:<token>'");
        }
        if (current.value() == null) {
            return null;
        }
        int sep = current.value().indexOf(':');
        if (sep < 0) {
            throw foreign(c, 1, "lock", "'<owner>:<token>'");
        }
        return LockValue.parse(current.value(), sep);
    }

    /**
     * {@code string.match(counter, '^%d+$') and tonumber(counter) < 2^53 - 1}: ASCII digits below
     * 2^53 - 1, so that counter + 1 is still exact in a Lua double.
     */
    static boolean isCounter(String counter) {
        if (!DIGITS.matcher(counter).matches()) {
            return false;
        }
        String significant = counter.replaceFirst("^0+(?=.)", "");
        return significant.length() <= 16 && Long.parseLong(significant) < MAX_EXACT_COUNTER;
    }

    /**
     * renew.lua: every lease's key read first (MGET, where a key of another type reads as nil), then
     * each key checked against what was read, or against what this call wrote to it if the key came
     * earlier in the call too: a value equal to the caller's {@code expected} is renewed to the
     * caller's {@code value} as it is; any other goes through the full check (EXISTS only for a key
     * read as nil); one SET per lease renewed. The lease time is ARGV[1] for all, or each lease's own
     * when ARGV[1] is ''; ARGV[1] ending in ':<p>' adds p waiters' places, kept after the leases (see
     * {@link #keepPlaces}). Replies {codes, 0} ({codes, 0, places} with places): like a server whose
     * clock stands still during a script (Redis 7.2 and 7.3), the emulation cannot tell how long it ran.
     */
    private Object renew(ScriptCall c) {
        String first = c.requiredArg(1);
        int placesSep = first.indexOf(':');
        int places = placesSep < 0 ? 0 : Integer.parseInt(first.substring(placesSep + 1));
        String sharedLease = placesSep < 0 ? first : first.substring(0, placesSep);
        int n = c.keyCount() - 3 * places;
        boolean shared = !"".equals(sharedLease);
        int stride = shared ? 2 : 3;
        List<String> values = new ArrayList<>(n);
        for (int i = 1; i <= n; i++) {
            values.add(mgetValue(c, i));
        }
        Map<String, String> written = new HashMap<>();
        List<Object> result = new ArrayList<>(n);
        int at = 2;
        for (int i = 1; i <= n; i++, at += stride) {
            String key = c.key(i);
            String current = written.containsKey(key) ? written.get(key) : values.get(i - 1);
            long lease = shared ? leaseMillis(c, sharedLease, 1) : c.integerArg(at + 2, "SET PX");
            int leaseArg = shared ? 1 : at + 2;
            if (current != null && current.equals(c.arg(at))) {
                String value = c.requiredArg(at + 1);
                setPx(c, i, value, lease, leaseArg, "lease");
                written.put(key, value);
                result.add(1L);
                continue;
            }
            if (current == null) {
                result.add(store.exists(key, c.nowMillis()) ? -2L : 0L);
                continue;
            }
            int sep = current.indexOf(':');
            if (sep < 0) {
                result.add(-2L);
                continue;
            }
            String value = c.requiredArg(at + 1); // (sub(value, ...): Lua fails on a missing value here)
            if (!current.substring(0, sep + 1).equals(value.substring(0, Math.min(sep + 1, value.length())))) {
                result.add(-1L);
                continue;
            }
            int seqSep = current.indexOf(':', sep + 1);
            double applied = seqSep < 0 ? 0 : luaNumberOrZero(current.substring(seqSep + 1));
            int lastSep = value.lastIndexOf(':'); // (sep + 1 of value is ':', so there is one)
            String seqText = value.substring(lastSep + 1);
            if (luaNumber(c, seqText, at + 1) <= applied) {
                result.add(2L);
                continue;
            }
            String renewed = (seqSep < 0 ? current : current.substring(0, seqSep)) + ":" + seqText;
            setPx(c, i, renewed, lease, leaseArg, "lease");
            written.put(key, renewed);
            result.add(1L);
        }
        if (places == 0) {
            return List.of(List.copyOf(result), 0L);
        }
        return List.of(List.copyOf(result), 0L, keepPlaces(c, n, places, at));
    }

    /**
     * renew.lua's places: each of the {@code places} waiters (keys lock, queue and waiter leases from
     * KEYS[n + 1] on, arguments owner and waiter lease from ARGV[at] on) keeps its place, its deadline
     * moved to now + its waiter lease and the queue keys made to live as long as their longest
     * deadline, while its place is in both queue keys and not lapsed and the lock is held: the holder's
     * token for it; else 0 (the waiter asks). Keys of another type read as no place, or a free lock
     * (the script's pcalls).
     */
    private List<Object> keepPlaces(ScriptCall c, int n, int places, int at) {
        long now = c.nowMillis();
        List<Object> kept = new ArrayList<>(places);
        for (int j = 0, k = n; j < places; j++, k += 3, at += 2) {
            String owner = c.requiredArg(at);
            long lease = c.integerArg(at + 1, "ZADD");
            Double deadline = pcallZscore(c.key(k + 3), owner, now);
            Double ticket = deadline != null && deadline > now ? pcallZscore(c.key(k + 2), owner, now) : null;
            Get current = ticket != null ? pcallGet(c, k + 1) : new Get(null, false);
            int sep = current.value() == null ? -1 : current.value().indexOf(':');
            if (sep < 0) {
                kept.add(0L);
                continue;
            }
            store.zadd(c.key(k + 3), now + lease, owner, now);
            List<Map.Entry<String, Double>> waiters = store.zrange(c.key(k + 3), now);
            double longest = waiters.get(waiters.size() - 1).getValue();
            // (a foreign member's score that is no TTL, such as inf: this place's lease)
            long ttl = Double.isFinite(longest) ? Math.max((long) longest - now, 1) : lease;
            try { // (pcall: a foreign member's score too large for a TTL is passed over)
                store.pexpire(c.key(k + 2), ttl, now);
                store.pexpire(c.key(k + 3), ttl, now);
            } catch (ArithmeticException overflow) {
                // passed over, as the script's pcalls do
            }
            String rest = current.value().substring(sep + 1);
            int seqSep = rest.indexOf(':');
            kept.add(seqSep < 0 ? rest : rest.substring(0, seqSep));
        }
        return List.copyOf(kept);
    }

    /** {@code redis.pcall('ZSCORE', key, member)}: the score, or null when absent or the key is not a zset. */
    private Double pcallZscore(String key, String member, long now) {
        try {
            return store.zscore(key, member, now);
        } catch (InMemoryStore.WrongTypeException foreign) {
            return null;
        }
    }

    /** The shared lease of renew.lua's ARGV[1] (before any ':<p>'), an integer as SET PX reads it. */
    private static long leaseMillis(ScriptCall c, String text, int argIndex) {
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException notAnInteger) {
            throw c.error(
                    "ERR value is not an integer or out of range",
                    "ARGV[" + argIndex + "] for SET PX must be an integer, but was '" + c.arg(argIndex) + "'");
        }
    }

    /**
     * Lua's {@code tonumber(text) <= applied} where {@code text} is the sequence number cut from
     * ARGV[{@code argIndex}]: a comparison with nil fails the script, as it does in Lua.
     */
    private static double luaNumber(ScriptCall c, String text, int argIndex) {
        double number = luaNumberOrZero(text);
        if (number == 0 && !isLuaNumber(text)) {
            throw c.error(
                    "ERR user_script: attempt to compare nil with number",
                    "ARGV[" + argIndex + "] must end in ':<seq>', a number, but was '" + c.arg(argIndex) + "'");
        }
        return number;
    }

    /** Whether Lua reads {@code text} as a number (tonumber gives no nil). */
    private static boolean isLuaNumber(String text) {
        String trimmed = text.strip();
        return LUA_HEX.matcher(trimmed).matches()
                || LUA_DECIMAL.matcher(trimmed).matches();
    }

    /**
     * Lua's {@code tonumber(text) or 0} for a sequence number read from a lock value: Leasehold writes
     * only digits there; any other text is read as Lua 5.1 reads it (decimal or hex, blanks around),
     * and what Lua cannot read counts as 0.
     */
    private static double luaNumberOrZero(String text) {
        if (DIGITS.matcher(text).matches()) {
            return text.length() <= 18 ? Long.parseLong(text) : Double.parseDouble(text);
        }
        String trimmed = text.strip();
        try {
            if (LUA_HEX.matcher(trimmed).matches()) {
                return Long.parseUnsignedLong(trimmed.substring(2), 16);
            }
            if (LUA_DECIMAL.matcher(trimmed).matches()) {
                return Double.parseDouble(trimmed);
            }
        } catch (NumberFormatException tooLarge) {
            // falls through: not a number Lua would read either
        }
        return 0;
    }

    /** One key's share of {@code redis.call('MGET', ...)}: its string value, or null when absent or not a string. */
    private String mgetValue(ScriptCall c, int keyIndex) {
        try {
            return store.get(c.key(keyIndex), c.nowMillis());
        } catch (InMemoryStore.WrongTypeException e) {
            return null;
        }
    }

    private Object extend(ScriptCall c) {
        Get current = pcallGet(c, 1);
        if (current.wrongType()) {
            return -2L;
        }
        if (current.value() == null) {
            return 0L;
        }
        int sep = current.value().indexOf(':');
        if (sep < 0) {
            return -2L;
        }
        long code = setTtlInOrder(c, 1, LockValue.parse(current.value(), sep), 1, 2, 3);
        if (code == 1 && c.keyCount() >= 2) {
            publish(c, 4, 2); // a release under a min-hold time tells the waiters to ask again
        }
        return code;
    }

    /**
     * The shared part of renew and extend: -1 for another owner's lock; 2 (superseded) when the value
     * records a sequence number at least this command's; else {@code SET key owner:token:seq PX lease}
     * and 1.
     */
    private long setTtlInOrder(ScriptCall c, int keyIndex, LockValue held, int ownerArg, int leaseArg, int seqArg) {
        if (!held.owner().equals(c.arg(ownerArg))) {
            return -1L;
        }
        long seq = c.integerArg(seqArg, "tonumber");
        if (seq <= held.seq()) {
            return 2L;
        }
        setPx(c, keyIndex, held.owner() + ":" + held.token() + ":" + c.requiredArg(seqArg), leaseArg, "lease");
        return 1L;
    }

    /**
     * A lock value: {@code "<owner>:<token>"}, or {@code "<owner>:<token>:<seq>"} once renew or extend
     * set its TTL (seq 0 when absent), as the scripts split it.
     */
    record LockValue(String owner, String token, long seq, boolean hasSeq) {
        static LockValue parse(String value, int sep) {
            String rest = value.substring(sep + 1);
            int seqSep = rest.indexOf(':');
            if (seqSep < 0) {
                return new LockValue(value.substring(0, sep), rest, 0, false);
            }
            return new LockValue(
                    value.substring(0, sep),
                    rest.substring(0, seqSep),
                    Long.parseLong(rest.substring(seqSep + 1)),
                    true);
        }
    }

    private Object inspect(ScriptCall c) {
        Get current = pcallGet(c, 1);
        if (current.wrongType()) {
            throw foreign(c, 1, "lock", "a string '<owner>:<token>'");
        }
        if (current.value() == null) {
            return List.of();
        }
        int sep = current.value().indexOf(':');
        if (sep < 0) {
            throw foreign(c, 1, "lock", "'<owner>:<token>'");
        }
        return List.of(LockValue.parse(current.value(), sep).token(), store.pttl(c.key(1), c.nowMillis()));
    }

    private Object forceRelease(ScriptCall c) {
        if (!store.del(c.key(1), c.nowMillis())) {
            return 0L;
        }
        publish(c, 1, 2);
        return 1L;
    }

    /** What {@code redis.pcall('GET', key)} answered: the value (null when absent), or a WRONGTYPE error. */
    record Get(String value, boolean wrongType) {}

    /** redis.pcall('GET', KEYS[keyIndex]). */
    Get pcallGet(ScriptCall c, int keyIndex) {
        try {
            return new Get(store.get(c.key(keyIndex), c.nowMillis()), false);
        } catch (InMemoryStore.WrongTypeException e) {
            return new Get(null, true);
        }
    }

    /** The scripts' foreign(): an error reply naming the key, what it holds (TYPE) and what was expected. */
    InMemoryScriptException foreign(ScriptCall c, int keyIndex, String what, String expected) {
        String key = c.key(keyIndex);
        String kind = store.type(key, c.nowMillis());
        return c.error(
                "ERR key '" + key + "' holds a value that is not a Leasehold " + what + " (a " + kind + ", not "
                        + expected + ")",
                "KEYS[" + keyIndex + "]");
    }

    /** redis.call('SET', KEYS[keyIndex], value, 'PX', ARGV[argIndex]). */
    void setPx(ScriptCall c, int keyIndex, String value, int argIndex, String what) {
        setPx(c, keyIndex, value, c.integerArg(argIndex, "SET PX"), argIndex, what);
    }

    /** redis.call('SET', KEYS[keyIndex], value, 'PX', ttl), where ttl was read from ARGV[argIndex]. */
    void setPx(ScriptCall c, int keyIndex, String value, long ttl, int argIndex, String what) {
        if (ttl <= 0) {
            throw c.error(
                    "ERR invalid expire time in 'set' command",
                    "ARGV[" + argIndex + "] (" + what + ") must be positive, but was " + ttl);
        }
        try {
            store.setPx(c.key(keyIndex), value, ttl, c.nowMillis());
        } catch (ArithmeticException e) {
            throw c.error(
                    "ERR invalid expire time in 'set' command",
                    "ARGV[" + argIndex + "] (" + what + ") overflows: " + ttl);
        }
    }

    /** redis.call('PEXPIRE', KEYS[keyIndex], ARGV[argIndex]). */
    void pexpire(ScriptCall c, int keyIndex, int argIndex) {
        long ttl = c.integerArg(argIndex, "PEXPIRE");
        try {
            store.pexpire(c.key(keyIndex), ttl, c.nowMillis());
        } catch (ArithmeticException e) {
            throw c.error("ERR invalid expire time in 'pexpire' command", "ARGV[" + argIndex + "] overflows: " + ttl);
        }
    }

    /**
     * redis.call(ARGV[commandIndex], KEYS[channelIndex], 'released'). Every subscription of this
     * backend is sharded ({@code SSUBSCRIBE}, as {@code shardedPubSub()} says), and, as in Redis,
     * plain {@code PUBLISH} does not reach sharded subscribers: it runs, and nobody hears it.
     */
    private void publish(ScriptCall c, int commandIndex, int channelIndex) {
        publish(c, commandIndex, channelIndex, RELEASED);
    }

    /** redis.call(ARGV[commandIndex], KEYS[channelIndex], message); see {@link #publish(ScriptCall, int, int)}. */
    void publish(ScriptCall c, int commandIndex, int channelIndex, String message) {
        String command = c.requiredArg(commandIndex);
        String channel = c.key(channelIndex);
        if (command.equalsIgnoreCase("SPUBLISH")) {
            hub.publish(channel, message);
        } else if (!command.equalsIgnoreCase("PUBLISH")) {
            throw c.error(
                    "ERR Unknown Redis command called from script",
                    "ARGV[" + commandIndex + "] must be 'SPUBLISH' or 'PUBLISH', but was '" + command + "'");
        }
    }

    private static Map<String, String> bundledShas() {
        Map<String, String> shas = new LinkedHashMap<>();
        for (String name : ScriptNames.ALL) {
            shas.put(name, Objects.requireNonNull(LuaScript.bundled(name).sha1()));
        }
        return Map.copyOf(shas);
    }
}
