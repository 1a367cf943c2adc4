package io.leasehold.lock.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * acquire.lua, release.lua and handoff.lua all read the lock value, keep the lock's wait queue and
 * grant the lock with a fresh fencing token (the hybrid logical clock and the checks of foreign
 * values). Redis scripts cannot include one another, so each carries its own copy of those
 * functions, between {@code -- [shared:queue] begin} and {@code -- [shared:queue] end}: this test
 * proves the copies the same, line for line, so that a fix made to one script cannot miss the others.
 */
class SharedScriptBlocksTest {

    private static final Pattern BEGIN = Pattern.compile("(?m)^[ \\t]*-- \\[shared:([a-z-]+)\\] begin\\n");

    @Test
    void shouldCarryTheSameQueueBlockInEveryScriptThatGrants() {
        String acquire = blocks(ScriptNames.ACQUIRE).get("queue");

        assertTrue(acquire != null && !acquire.isBlank(), "acquire.lua carries the block 'queue'");
        for (String name : new String[] {
            ScriptNames.ACQUIRE, ScriptNames.RELEASE, ScriptNames.HANDOFF, ScriptNames.QUORUM_FAIR_ACQUIRE
        }) {
            Map<String, String> blocks = blocks(name);
            assertEquals(Set.of("queue"), blocks.keySet(), () -> "shared blocks of " + name + ".lua");
            assertEquals(
                    acquire,
                    blocks.get("queue"),
                    () -> "block 'queue' differs between acquire.lua and " + name + ".lua: make them the same");
        }
    }

    @Test
    void shouldTakeTheTokenFromTheHybridLogicalClockInTheQueueBlock() {
        String queue = blocks(ScriptNames.ACQUIRE).get("queue");

        // (guards the markers: the block must hold the token logic, not drift away from it)
        for (String line : new String[] {
            "redis.call('TIME')",
            "token = math.max(tonumber(counter) + 1, token)",
            "token = string.format('%.0f', token)",
            "redis.call('SET', KEYS[2], token, 'PX', counterTtl)",
            "redis.call('SET', KEYS[1], owner .. ':' .. token, 'PX', px)",
            "if counter and (not string.match(counter, '^%d+$') or tonumber(counter) >= 9007199254740991) then"
        }) {
            assertTrue(queue.contains(line), () -> "the queue block lacks " + line + ":\n" + queue);
        }
    }

    /** The shared blocks of the bundled script {@code name}, by block name, their lines as written. */
    private static Map<String, String> blocks(String name) {
        String source = LuaScript.bundled(name).source().replace("\r\n", "\n");
        Map<String, String> blocks = new LinkedHashMap<>();
        Matcher begin = BEGIN.matcher(source);
        int from = 0;
        while (begin.find(from)) {
            String block = begin.group(1);
            Matcher end = Pattern.compile("(?m)^[ \\t]*-- \\[shared:" + Pattern.quote(block) + "\\] end$")
                    .matcher(source);
            if (!end.find(begin.end())) {
                throw new AssertionError(name + ".lua: block '" + block + "' has no end marker");
            }
            String text = source.substring(begin.end(), end.start());
            if (text.contains("-- [shared:")) {
                throw new AssertionError(name + ".lua: block '" + block + "' holds another marker");
            }
            if (blocks.put(block, text) != null) {
                throw new AssertionError(name + ".lua: block '" + block + "' appears twice");
            }
            from = end.end();
        }
        return blocks;
    }
}
