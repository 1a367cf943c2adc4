package io.leasehold.lock.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.spi.ScriptNames;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Pins the scripts the emulation was written against. When this fails, a bundled script changed:
 * update {@code ScriptEmulator} to match it line by line, then the hash here.
 */
class InMemoryScriptDriftTest {

    private static final Map<String, String> EMULATED = Map.of(
            ScriptNames.ACQUIRE, "b8fdf8e1fdfa925ac514e81c7c59d51d3c8e3a63",
            ScriptNames.RELEASE, "e5f14d9018ec89f92162a2c226b1a4b3ba4aa498",
            ScriptNames.RENEW, "ad3e02e64a47f4ea02b27212ab62874e8edf72f9",
            ScriptNames.EXTEND, "7565b278cc8d90b595572502639dee7519fb476c",
            ScriptNames.INSPECT, "44e847a644ba0d499863518a4d5ef825f1cae7e0",
            ScriptNames.FORCE_RELEASE, "fd0862b24b9aa258cf95cf4aa68a844eaca330a6");

    @Test
    void shouldEmulateExactlyTheBundledScripts() {
        assertEquals(EMULATED.keySet(), java.util.Set.copyOf(ScriptNames.ALL), "the set of bundled scripts changed");
        for (String name : ScriptNames.ALL) {
            assertEquals(EMULATED.get(name), LuaScript.bundled(name).sha1(),
                    () -> "script '" + name + "' changed: update ScriptEmulator to match it, then this pin");
        }
    }
}
