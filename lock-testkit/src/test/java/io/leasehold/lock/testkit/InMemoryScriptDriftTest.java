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
            ScriptNames.ACQUIRE, "787ea1271793d7a51f28cef94414515ee92d80d6",
            ScriptNames.RELEASE, "14e5ee80f0ff276506e1f74c3d7d79e2444cbdeb",
            ScriptNames.RENEW, "db184a1c904c49b4d8241a8b88e78f7a65703e63",
            ScriptNames.EXTEND, "2cb8efb136b9c55270b6200df8ac6a37d433a56d",
            ScriptNames.INSPECT, "fb1127bdd995e1d8f9754b39a502d9b56874dc8f",
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
