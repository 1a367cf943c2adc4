package io.leasehold.lock.internal;

import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.spi.ScriptNames;

/** The bundled scripts, loaded once. Their headers document KEYS, ARGV and replies. */
final class EngineScripts {

    static final LuaScript ACQUIRE = LuaScript.bundled(ScriptNames.ACQUIRE);
    static final LuaScript HANDOFF = LuaScript.bundled(ScriptNames.HANDOFF);
    static final LuaScript RELEASE = LuaScript.bundled(ScriptNames.RELEASE);
    static final LuaScript RENEW = LuaScript.bundled(ScriptNames.RENEW);
    static final LuaScript EXTEND = LuaScript.bundled(ScriptNames.EXTEND);
    static final LuaScript INSPECT = LuaScript.bundled(ScriptNames.INSPECT);
    static final LuaScript FORCE_RELEASE = LuaScript.bundled(ScriptNames.FORCE_RELEASE);

    private EngineScripts() {}
}
