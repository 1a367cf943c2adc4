package io.leasehold.examples;

/**
 * The shared stock of one product as a remote store sees it, through one node's connection.
 *
 * <p>{@link #read()} and {@link #write(long)} are separate round trips (a plain GET and SET): a
 * read-modify-write from two nodes at once loses updates, which is the whole point of the demo.
 * {@link #writeFenced(long, long)} is what a store that knows about fencing tokens offers: it
 * refuses a write carrying a token older than one it has already accepted.
 */
interface StockStore extends AutoCloseable {

    /** Sets the stock to {@code items} and forgets every fencing token seen. */
    void reset(long items);

    long read();

    void write(long items);

    /**
     * Writes {@code items} unless a write with a greater fencing token was already accepted.
     *
     * @return false if the write was refused as stale
     */
    boolean writeFenced(long items, long fencingToken);

    /** The greatest fencing token accepted so far; 0 if none. */
    long highestTokenSeen();

    @Override
    void close();
}
