package io.leasehold.examples;

import java.util.Optional;

/**
 * The demo's command line: {@code [--redis redis://host:port] [--in-memory] [--driver lettuce|jedis]
 * [--stock N] [--shoppers N] [--nodes N] [--workers N]}.
 *
 * @param redisUri    an existing Redis to use instead of starting one
 * @param inMemory    skip Redis altogether and use the in-memory backend
 * @param stock       items on sale
 * @param shoppers    purchase requests, spread evenly over the nodes
 * @param nodes       simulated application nodes, each with its own LockClient and connections
 * @param workers     request-handling threads per node
 * @param driver      the Redis driver the nodes lock with (Lettuce by default)
 */
record DemoOptions(
        Optional<String> redisUri, boolean inMemory, int stock, int shoppers, int nodes, int workers, Driver driver) {

    /** The Redis drivers the demo can lock with. */
    enum Driver {
        LETTUCE,
        JEDIS
    }

    static final String USAGE =
            "usage: FlashSaleDemo [--redis redis://host:port] [--in-memory] [--driver lettuce|jedis] "
                    + "[--stock N] [--shoppers N] [--nodes N] [--workers N-per-node]";

    /** Options as given, with Lettuce as the driver. */
    DemoOptions(Optional<String> redisUri, boolean inMemory, int stock, int shoppers, int nodes, int workers) {
        this(redisUri, inMemory, stock, shoppers, nodes, workers, Driver.LETTUCE);
    }

    static DemoOptions defaults() {
        return new DemoOptions(Optional.empty(), false, 200, 1000, 4, 5);
    }

    static DemoOptions parse(String... args) {
        DemoOptions o = defaults();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            switch (arg) {
                case "--in-memory" ->
                    o = new DemoOptions(o.redisUri, true, o.stock, o.shoppers, o.nodes, o.workers, o.driver);
                case "--driver" ->
                    o = new DemoOptions(
                            o.redisUri,
                            o.inMemory,
                            o.stock,
                            o.shoppers,
                            o.nodes,
                            o.workers,
                            driver(value(args, ++i, arg)));
                case "--redis" ->
                    o = new DemoOptions(
                            Optional.of(value(args, ++i, arg)),
                            o.inMemory,
                            o.stock,
                            o.shoppers,
                            o.nodes,
                            o.workers,
                            o.driver);
                case "--stock" ->
                    o = new DemoOptions(
                            o.redisUri,
                            o.inMemory,
                            number(args, ++i, arg, 1),
                            o.shoppers,
                            o.nodes,
                            o.workers,
                            o.driver);
                case "--shoppers" ->
                    o = new DemoOptions(
                            o.redisUri, o.inMemory, o.stock, number(args, ++i, arg, 1), o.nodes, o.workers, o.driver);
                case "--nodes" ->
                    o = new DemoOptions(
                            o.redisUri,
                            o.inMemory,
                            o.stock,
                            o.shoppers,
                            number(args, ++i, arg, 2),
                            o.workers,
                            o.driver);
                case "--workers" ->
                    o = new DemoOptions(
                            o.redisUri, o.inMemory, o.stock, o.shoppers, o.nodes, number(args, ++i, arg, 1), o.driver);
                default -> throw new IllegalArgumentException("unknown argument '" + arg + "'; " + USAGE);
            }
        }
        if (o.inMemory && o.redisUri.isPresent()) {
            throw new IllegalArgumentException("--redis and --in-memory exclude each other; " + USAGE);
        }
        return o;
    }

    private static Driver driver(String name) {
        return switch (name) {
            case "lettuce" -> Driver.LETTUCE;
            case "jedis" -> Driver.JEDIS;
            default -> throw new IllegalArgumentException("--driver must be lettuce or jedis, but was '" + name + "'");
        };
    }

    private static String value(String[] args, int i, String flag) {
        if (i >= args.length || args[i].isBlank()) {
            throw new IllegalArgumentException(flag + " needs a value; " + USAGE);
        }
        return args[i];
    }

    private static int number(String[] args, int i, String flag, int min) {
        String text = value(args, i, flag);
        try {
            int n = Integer.parseInt(text);
            if (n >= min) {
                return n;
            }
        } catch (NumberFormatException ignored) {
            // reported below
        }
        throw new IllegalArgumentException(
                flag + " must be a whole number of at least " + min + ", but was '" + text + "'");
    }
}
