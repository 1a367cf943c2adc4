package io.leasehold.bench;

/** What the renewal scenario says when a contender let locks go that it was holding. */
final class ManyHolders {

    private ManyHolders() {}

    /**
     * Says how many of the {@code count} locks {@code contender} held were no longer its own at
     * release (its renewal did not keep them): a figure to read beside the renewal tables, not an
     * error that ends the bench.
     */
    static void sayNotHeld(String contender, int notHeld, int count) {
        if (notHeld > 0) {
            BenchMain.say("%s: %,d of %,d locks were no longer held at release", contender, notHeld, count);
        }
    }
}
