package io.leasehold.lock.inmemory;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.spi.ScriptNames;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Pins the scripts the emulation was written against. When this fails, a bundled script changed:
 * update {@code ScriptEmulator} (or {@code QueueScriptEmulator}, {@code QuorumScriptEmulator}, {@code QuorumRestoreEmulator}, {@code QuorumFairAcquireEmulator}) to match it line by line, then the hash here.
 */
class InMemoryScriptDriftTest {

    private static final Map<String, String> EMULATED = Map.ofEntries(
            Map.entry(ScriptNames.ACQUIRE, "e9bf11b9cbc529fb6ed51a0bb4f879b32d4c936d"),
            Map.entry(ScriptNames.HANDOFF, "5725a12710d3f71df7874617e6d607b73e0ccbaa"),
            Map.entry(ScriptNames.RELEASE, "7bbec8ade74c5855fcf6fd4ef985706002fafa7c"),
            Map.entry(ScriptNames.RENEW, "772b3e1abef89811f9deb6a6ed5d403c38411696"),
            Map.entry(ScriptNames.EXTEND, "08aafe37b59335f743c4ff62e660d60b6180068a"),
            Map.entry(ScriptNames.INSPECT, "dca83e28d652b31c152dd3fe4898779058504e36"),
            Map.entry(ScriptNames.FORCE_RELEASE, "fd0862b24b9aa258cf95cf4aa68a844eaca330a6"),
            Map.entry(ScriptNames.QUORUM_COMMIT, "5ff866c353b1db9c9f3d9b36473b4fbf2af6d33a"),
            Map.entry(ScriptNames.QUORUM_ENLIST, "2f02f8da32aebc422465e1b23f96e1d9bcfe2293"),
            Map.entry(ScriptNames.QUORUM_RESTORE, "578c970285073a6831cabafa039eba957b64882c"),
            Map.entry(ScriptNames.QUORUM_FAIR_ACQUIRE, "e68be506c1fd23fece26b9b9735256b02daf2525"));

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
