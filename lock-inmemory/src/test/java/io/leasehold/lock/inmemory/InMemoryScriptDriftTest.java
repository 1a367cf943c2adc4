package io.leasehold.lock.inmemory;

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
            ScriptNames.ACQUIRE, "a32a1d28febb3a66ecf852b2652d456c1cd1b3a3",
            ScriptNames.HANDOFF, "cb0fb779773ff061f87ca35a8f15b9a41196916c",
            ScriptNames.RELEASE, "e1b95cb14099e14d2fd1ed721352ee54d936c3ca",
            ScriptNames.RENEW, "796900ce30d3e91ccfd7e103ad0e93a36a6c12a0",
            ScriptNames.EXTEND, "39c4b21f2a0968b5686e060f24912efc126c1ce7",
            ScriptNames.INSPECT, "dca83e28d652b31c152dd3fe4898779058504e36",
            ScriptNames.FORCE_RELEASE, "fd0862b24b9aa258cf95cf4aa68a844eaca330a6",
            ScriptNames.QUEUE_ACQUIRE, "9fb3729a2b4c3061e7139ce5aad8f21835d0b20a",
            ScriptNames.QUEUE_RELEASE, "b5910ff549827cc97dc637e5913440f422bb1d12");

    @Test
    void shouldEmulateExactlyTheBundledScripts() {
        assertEquals(EMULATED.keySet(), java.util.Set.copyOf(ScriptNames.ALL), "the set of bundled scripts changed");
        for (String name : ScriptNames.ALL) {
            assertEquals(
                    EMULATED.get(name),
                    LuaScript.bundled(name).sha1(),
                    () -> "script '" + name + "' changed: update ScriptEmulator to match it, then this pin");
        }
    }
}
