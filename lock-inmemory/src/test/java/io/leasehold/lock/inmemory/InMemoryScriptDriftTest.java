package io.leasehold.lock.inmemory;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.spi.ScriptNames;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Pins the scripts the emulation was written against. When this fails, a bundled script changed:
 * update {@code ScriptEmulator} (or {@code QueueScriptEmulator}) to match it line by line, then the hash here.
 */
class InMemoryScriptDriftTest {

    private static final Map<String, String> EMULATED = Map.of(
            ScriptNames.ACQUIRE, "a2b0d148370d70b19d508fa0e79eb6e89ceefced",
            ScriptNames.HANDOFF, "d0f411f17473d58f2d37fdc55ee9f8588275f082",
            ScriptNames.RELEASE, "a80c739e939d34c3e74e74b11349bb790a3ddb38",
            ScriptNames.RENEW, "796900ce30d3e91ccfd7e103ad0e93a36a6c12a0",
            ScriptNames.EXTEND, "39c4b21f2a0968b5686e060f24912efc126c1ce7",
            ScriptNames.INSPECT, "dca83e28d652b31c152dd3fe4898779058504e36",
            ScriptNames.FORCE_RELEASE, "fd0862b24b9aa258cf95cf4aa68a844eaca330a6");

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
