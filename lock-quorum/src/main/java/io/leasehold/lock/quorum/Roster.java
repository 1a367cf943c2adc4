package io.leasehold.lock.quorum;

import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * What one client knows of each member's standing for one key prefix (each prefix has its own quorum
 * record on each member): taking part in grants, out until an instant of this client's monotonic
 * clock (sitting out after a reset, awaiting its seed, or not answering), or not known. One
 * enlistment at a time runs for the prefix; its outcome replaces the standings it learnt.
 *
 * <p>The standings are a cache that only saves calls: a member's own record decides (quorum-commit.lua
 * commits only where it takes part), and a member found not taking part is {@link #forget forgotten}.
 *
 * <p>Threadsafe: every field is owned by this class under its monitor; nothing blocks under it.
 */
final class Roster {

    /** A member's standing as this client knows it. */
    enum Standing {
        UNKNOWN,
        TAKING_PART,
        OUT,
        /**
         * Found without a record while another member holds one, once: out for a moment, then reset
         * if still so (a new quorum's joins may still be on their way to it).
         */
        EMPTY,
        /**
         * Did not answer its probe: asked again after a while, and meanwhile asked to grant as any
         * member (its own record decides whether it commits), so that a call it fails reports its failure.
         */
        UNREACHABLE,
        /**
         * Answered its probe that its quorum record key holds a value Leasehold did not write (another
         * type, a field that is no integer): it takes no part, and is asked again after a while (someone
         * may remove the value); the error of an acquisition names it, see {@link #foreign(int)}.
         */
        FOREIGN,
        /**
         * Answered its probe in a way that breaks a rule of the quorum's configuration (the same server as
         * another member, a server that may evict keys; see {@link MemberConfigCheck}): it takes no part,
         * every acquisition is refused while any member is so (see {@link #refusal()}), and it is asked
         * again after a while (someone may fix its configuration).
         */
        REFUSED
    }

    private final Standing[] standings;
    /** For a member {@link Standing#OUT}: the {@link System#nanoTime()} after which it is enlisted again. */
    private final long[] outUntil;
    /** For a member {@link Standing#FOREIGN}: what its record key holds, as its probe said; else null. */
    private final String[] foreign;
    /** For a member {@link Standing#REFUSED}: the rules it breaks, each naming it; else null. */
    private final List<String>[] refused;

    /** The enlistment running, ended when it has learnt its standings; null when none runs. */
    private CompletableFuture<Void> enlisting;
    /**
     * An enlistment asked for by {@link #enlistAnew} while one ran (which may have probed before what
     * its caller found): started as soon as the running one ends; null when none is asked for.
     */
    private CompletableFuture<Void> queued;

    Roster(int members) {
        this.standings = new Standing[members];
        this.outUntil = new long[members];
        this.foreign = new String[members];
        @SuppressWarnings("unchecked")
        List<String>[] none = new List[members];
        this.refused = none;
        Arrays.fill(standings, Standing.UNKNOWN);
    }

    /**
     * Completes once a majority takes part as far as this client knows: at once when it does, or when
     * no member is due for enlisting; else when the enlistment that {@code enlist} starts (or the one
     * running) has ended. A member is due when its standing is unknown, or it is out and its instant
     * passed. A due member is enlisted in the background even while a majority takes part.
     */
    CompletableFuture<Void> ready(int majority, long now, Supplier<CompletableFuture<Void>> enlist) {
        CompletableFuture<Void> started;
        boolean enough;
        synchronized (this) {
            enough = mayTakePart() >= majority;
            if (enlisting != null || !due(now)) {
                return enough || enlisting == null ? CompletableFuture.completedFuture(null) : enlisting;
            }
            started = new CompletableFuture<>();
            enlisting = started;
        }
        run(started, enlist);
        return enough ? CompletableFuture.completedFuture(null) : started;
    }

    /**
     * Completes once an enlistment that started after this call has ended, whatever this client knows:
     * a member answered a commit that it takes no part, so the standings are out of date (the member
     * lost its data; another member's configuration may have changed too) and only new probes tell.
     * Starts one now when none runs; else one starts as soon as the running one ends (it may have
     * probed before the member's answer), shared by every caller that asked meanwhile.
     */
    CompletableFuture<Void> enlistAnew(Supplier<CompletableFuture<Void>> enlist) {
        CompletableFuture<Void> started;
        synchronized (this) {
            if (enlisting != null) {
                if (queued == null) {
                    queued = new CompletableFuture<>();
                }
                return queued;
            }
            started = new CompletableFuture<>();
            enlisting = started;
        }
        run(started, enlist);
        return started;
    }

    /**
     * Runs the enlistment that {@code started} stands for, called outside the monitor (a member's
     * future may complete on this very thread); when it ends, starts the one {@link #enlistAnew} queued.
     */
    private void run(CompletableFuture<Void> started, Supplier<CompletableFuture<Void>> enlist) {
        enlist.get().whenComplete((ignored, failure) -> {
            CompletableFuture<Void> next;
            synchronized (this) {
                next = queued;
                queued = null;
                enlisting = next;
            }
            started.complete(null);
            if (next != null) {
                run(next, enlist);
            }
        });
    }

    private boolean due(long now) {
        for (int i = 0; i < standings.length; i++) {
            boolean out = standings[i] != Standing.UNKNOWN && standings[i] != Standing.TAKING_PART;
            if (standings[i] == Standing.UNKNOWN || (out && now - outUntil[i] >= 0)) {
                return true;
            }
        }
        return false;
    }

    /**
     * How long to wait, in nanoseconds, before the members found {@link Standing#EMPTY} are due for
     * enlisting again, when fewer than {@code majority} may take part but they would make one: on a new
     * quorum, another client's joins may be on their way to them (docs/design/quorum-locks.md, F4).
     * Zero when one is due already; -1 when there is nothing to wait for (a majority may take part, the
     * members found without a record could not make one, or a member is {@link Standing#REFUSED}: no
     * acquisition is granted until it is enlisted again after its instant).
     */
    synchronized long untilEmptyDue(int majority, long now) {
        if (refusal() != null) {
            return -1;
        }
        int mayTakePart = mayTakePart();
        long wait = -1;
        int empty = 0;
        for (int i = 0; i < standings.length; i++) {
            if (standings[i] == Standing.EMPTY) {
                empty++;
                long left = Math.max(0, outUntil[i] - now);
                wait = wait < 0 ? left : Math.min(wait, left);
            }
        }
        return mayTakePart >= majority || mayTakePart + empty < majority ? -1 : wait;
    }

    /** How many members take part, or did not answer their last probe (see {@link Standing#UNREACHABLE}). */
    synchronized int mayTakePart() {
        int count = 0;
        for (Standing s : standings) {
            count += s == Standing.TAKING_PART || s == Standing.UNREACHABLE ? 1 : 0;
        }
        return count;
    }

    synchronized void takesPart(int member) {
        set(member, Standing.TAKING_PART, 0);
    }

    synchronized void out(int member, long until) {
        set(member, Standing.OUT, until);
    }

    synchronized void unreachable(int member, long until) {
        set(member, Standing.UNREACHABLE, until);
    }

    /** Found without a record while another member holds one; see {@link Standing#EMPTY}. */
    synchronized void empty(int member, long until) {
        set(member, Standing.EMPTY, until);
    }

    /** Its record key holds {@code what} (e.g. "key 'p:quorum' holds ... (a string, not a hash)"); see {@link Standing#FOREIGN}. */
    synchronized void foreign(int member, String what, long until) {
        set(member, Standing.FOREIGN, until);
        foreign[member] = what;
    }

    /** What member {@code member}'s record key holds when it is {@link Standing#FOREIGN}, else null. */
    synchronized String foreign(int member) {
        return foreign[member];
    }

    /** Breaks {@code rules} of the quorum's configuration (each naming it); see {@link Standing#REFUSED}. */
    synchronized void refused(int member, List<String> rules, long until) {
        set(member, Standing.REFUSED, until);
        refused[member] = List.copyOf(rules);
    }

    /**
     * Why every acquisition is refused: the rules the members {@link Standing#REFUSED} break, each
     * once (a pair that is one server breaks one rule), in member order, joined by "; "; null when no
     * member is refused.
     */
    synchronized String refusal() {
        Set<String> rules = new LinkedHashSet<>();
        for (List<String> r : refused) {
            if (r != null) {
                rules.addAll(r);
            }
        }
        return rules.isEmpty() ? null : String.join("; ", rules);
    }

    /**
     * The one transition of a member's standing: what it knew of a foreign value or a broken rule goes
     * with any other.
     */
    private void set(int member, Standing standing, long until) {
        standings[member] = standing;
        outUntil[member] = until;
        foreign[member] = null;
        refused[member] = null;
    }

    synchronized Standing standing(int member) {
        return standings[member];
    }

    /** A member answered that it takes no part: enlisted again at the next acquisition. */
    synchronized void forget(int member) {
        if (standings[member] == Standing.TAKING_PART || standings[member] == Standing.UNREACHABLE) {
            set(member, Standing.UNKNOWN, 0);
        }
    }

    /** The standings, for error messages: e.g. {@code [TAKING_PART, OUT for 58 s, UNKNOWN]}. */
    synchronized String describe(long now) {
        StringBuilder text = new StringBuilder("[");
        for (int i = 0; i < standings.length; i++) {
            text.append(i == 0 ? "" : ", ").append(standings[i]);
            if (standings[i] != Standing.UNKNOWN && standings[i] != Standing.TAKING_PART) {
                text.append(" for ")
                        .append(Math.max(0, (outUntil[i] - now) / 1_000_000))
                        .append(" ms");
            }
        }
        return text.append(']').toString();
    }
}
