package io.leasehold.examples;

import java.util.OptionalLong;

/**
 * The shared stock of one product as a remote store sees it, through one node's connection.
 *
 * <p>{@link #read()} and {@link #write(long)} are separate round trips (a plain GET and SET): a
 * read-modify-write from two nodes at once loses updates, which is the whole point of the demo.
 *
 * <p>{@link #readFenced} and {@link #writeFenced} are what a store that knows about fencing tokens
 * offers, and it checks the token on <em>every</em> access that matters, reads included: it records
 * the greatest token it has seen and refuses any access with a smaller one. Checking writes alone is
 * not enough: a paused holder's late write would be accepted whenever the new holder has read but
 * not yet written, and the new holder's write, built on its read, would then lose that update.
 */
interface StockStore extends AutoCloseable {

    /** Sets the stock to {@code items} and forgets every fencing token seen. */
    void reset(long items);

    long read();

    void write(long items);

    /**
     * Reads the stock for the holder of {@code fencingToken} and records the token, unless a greater
     * token was already seen.
     *
     * @return the stock, or empty if the read was refused as stale
     */
    OptionalLong readFenced(long fencingToken);

    /**
     * Writes {@code items} and records the token, unless a greater token was already seen (by a read
     * or a write).
     *
     * @return false if the write was refused as stale
     */
    boolean writeFenced(long items, long fencingToken);

    /** The greatest fencing token seen so far, by reads and writes; 0 if none. */
    long highestTokenSeen();

    @Override
    void close();
}
