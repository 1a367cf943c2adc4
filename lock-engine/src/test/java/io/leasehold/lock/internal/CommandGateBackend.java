package io.leasehold.lock.internal;

import io.leasehold.lock.inmemory.ManualClock;
import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.spi.ScriptNames;
import io.leasehold.lock.testkit.ForwardingLockBackend;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * For {@link LeaseEndingMomentsAttackTest}: holds back, on request, the replies of renew calls (the
 * command runs in the store at once; only its reply waits, as on a slow network) and the sending of
 * releases (the command reaches the store only when the test says so), so that a test on a
 * {@link ManualClock} decides exactly when Redis ran a command and when its answer arrived.
 */
final class CommandGateBackend extends ForwardingLockBackend {

    /** Keys of every renew call sent, in order. */
    final List<List<String>> renewsSent = new CopyOnWriteArrayList<>();

    final AtomicInteger releasesSent = new AtomicInteger();

    private volatile Predicate<List<String>> holdRenewReplyFor = keys -> false;
    private final List<Runnable> heldRenewReplies = new ArrayList<>();
    private volatile boolean holdReleases;
    private final List<Runnable> heldReleases = new ArrayList<>();

    CommandGateBackend(LockBackend delegate) {
        super(delegate);
    }

    /** From now on, renew calls whose keys match are run at once but answered only by {@link #answerHeldRenewals()}. */
    void holdRenewRepliesFor(Predicate<List<String>> keys) {
        holdRenewReplyFor = keys;
    }

    /** Delivers every renew reply held back so far (in order); returns how many. */
    int answerHeldRenewals() {
        List<Runnable> now;
        synchronized (heldRenewReplies) {
            now = new ArrayList<>(heldRenewReplies);
            heldRenewReplies.clear();
        }
        now.forEach(Runnable::run);
        return now.size();
    }

    int heldRenewals() {
        synchronized (heldRenewReplies) {
            return heldRenewReplies.size();
        }
    }

    /** From now on (until {@link #sendHeldReleases()}) releases are not sent to the store. */
    void holdReleases() {
        holdReleases = true;
    }

    /** Sends the releases held back (they run in the store now, and are answered now), and stops holding. */
    int sendHeldReleases() {
        holdReleases = false;
        List<Runnable> now;
        synchronized (heldReleases) {
            now = new ArrayList<>(heldReleases);
            heldReleases.clear();
        }
        now.forEach(Runnable::run);
        return now.size();
    }

    int heldReleaseCount() {
        synchronized (heldReleases) {
            return heldReleases.size();
        }
    }

    @Override
    public CompletableFuture<Object> eval(LuaScript script, List<String> keys, List<String> args) {
        if (script.name().equals(ScriptNames.RENEW)) {
            renewsSent.add(List.copyOf(keys));
            CompletableFuture<Object> ran = super.eval(script, keys, args);
            if (!holdRenewReplyFor.test(keys)) {
                return ran;
            }
            CompletableFuture<Object> answer = new CompletableFuture<>();
            synchronized (heldRenewReplies) {
                heldRenewReplies.add(() -> ran.whenComplete((value, error) -> {
                    if (error != null) {
                        answer.completeExceptionally(error);
                    } else {
                        answer.complete(value);
                    }
                }));
            }
            return answer;
        }
        if (script.name().equals(ScriptNames.RELEASE) && holdReleases) {
            CompletableFuture<Object> answer = new CompletableFuture<>();
            synchronized (heldReleases) {
                heldReleases.add(() -> {
                    releasesSent.incrementAndGet();
                    super.eval(script, keys, args).whenComplete((value, error) -> {
                        if (error != null) {
                            answer.completeExceptionally(error);
                        } else {
                            answer.complete(value);
                        }
                    });
                });
            }
            return answer;
        }
        if (script.name().equals(ScriptNames.RELEASE)) {
            releasesSent.incrementAndGet();
        }
        return super.eval(script, keys, args);
    }
}
