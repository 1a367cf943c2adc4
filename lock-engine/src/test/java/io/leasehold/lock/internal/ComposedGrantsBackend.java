package io.leasehold.lock.internal;

import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.spi.ScriptNames;
import io.leasehold.lock.testkit.ForwardingLockBackend;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A backend that says what a quorum of servers says of itself ({@link LockBackend#grantsAreComposed},
 * {@link LockBackend#confirmsPartially}), over one in-memory node: so that the engine's switches for
 * such a backend can be tested alone. While {@link #confirmPartially} is on, a renewal or extend that
 * the node confirmed is answered as confirmed partially (code 3), as a quorum answers when a server
 * of the majority did not confirm. This class is threadsafe.
 */
final class ComposedGrantsBackend extends ForwardingLockBackend {

    private final boolean composed;
    private volatile boolean partially;

    /** @param composed what {@link #grantsAreComposed} and {@link #confirmsPartially} say */
    ComposedGrantsBackend(LockBackend node, boolean composed) {
        super(node);
        this.composed = composed;
    }

    /** From now on, answers each renewal and extend the node confirmed as confirmed partially (or not). */
    void confirmPartially(boolean on) {
        partially = on;
    }

    @Override
    public boolean grantsAreComposed() {
        return composed;
    }

    @Override
    public boolean confirmsPartially() {
        return composed;
    }

    @Override
    public CompletableFuture<Object> eval(LuaScript script, List<String> keys, List<String> args) {
        CompletableFuture<Object> reply = super.eval(script, keys, args);
        if (script.name().equals(ScriptNames.EXTEND)) {
            return reply.thenApply(
                    code -> partially && Long.valueOf(1).equals(code) ? LockBackend.CONFIRMED_PARTIALLY : code);
        }
        if (script.name().equals(ScriptNames.RENEW)) {
            return reply.thenApply(this::partialCodes);
        }
        return reply;
    }

    /** renew.lua's reply {codes, micros[, places]} with each code 1 made 3 while {@link #partially}. */
    private Object partialCodes(Object reply) {
        if (!partially) {
            return reply;
        }
        List<Object> parts = new ArrayList<>((List<?>) reply);
        List<Object> codes = new ArrayList<>();
        for (Object code : (List<?>) parts.get(0)) {
            codes.add(Long.valueOf(1).equals(code) ? LockBackend.CONFIRMED_PARTIALLY : code);
        }
        parts.set(0, codes);
        return parts;
    }
}
