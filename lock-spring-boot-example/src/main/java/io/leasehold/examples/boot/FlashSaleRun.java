package io.leasehold.examples.boot;

import io.leasehold.lock.testkit.redis.RedisFixtures;
import io.leasehold.lock.testkit.redis.StandaloneRedis;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Starts a local {@code redis-server}, then the flash-sale application on it (a free port), puts 10 pairs
 * of sneakers on sale and sends 100 orders at once over HTTP. Prints what was sold and checks that
 * nothing was sold twice: exactly 10 orders accepted, 0 left, tokens rising in the order of the sales.
 * Exits with status 1 when a check fails.
 */
public final class FlashSaleRun {

    static final String ITEM = "sneakers";
    static final int STOCK = 10;
    static final int ORDERS = 100;

    /** What a run saw. */
    record Outcome(int accepted, int soldOut, int left, List<Long> tokens) {

        boolean soldEachOnce() {
            return accepted == STOCK && soldOut == ORDERS - STOCK && left == 0 && rising(tokens);
        }

        private static boolean rising(List<Long> tokens) {
            for (int i = 1; i < tokens.size(); i++) {
                if (tokens.get(i) <= tokens.get(i - 1)) {
                    return false;
                }
            }
            return true;
        }
    }

    private FlashSaleRun() {}

    public static void main(String[] args) throws Exception {
        Outcome outcome = run(System.out);
        System.exit(outcome.soldEachOnce() ? 0 : 1);
    }

    static Outcome run(PrintStream out) throws Exception {
        long started = System.nanoTime();
        try (StandaloneRedis redis = RedisFixtures.startStandalone()) {
            out.println("redis-server started on " + redis.host() + ":" + redis.port());
            SpringApplication app = new SpringApplication(FlashSaleApplication.class);
            app.setDefaultProperties(java.util.Map.of(
                    "server.port", "0",
                    "spring.main.banner-mode", "off",
                    "logging.level.root", "warn",
                    "spring.data.redis.host", redis.host(),
                    "spring.data.redis.port", Integer.toString(redis.port())));
            try (ConfigurableApplicationContext context = app.run()) {
                int port =
                        ((WebServerApplicationContext) context).getWebServer().getPort();
                Stock stock = context.getBean(Stock.class);
                stock.put(ITEM, STOCK);
                out.println("flash sale on http://localhost:" + port + ": " + STOCK + " " + ITEM + ", " + ORDERS
                        + " orders at once");

                List<Integer> statuses = sendOrders(port);
                int accepted = (int) statuses.stream().filter(s -> s == 200).count();
                int soldOut = (int) statuses.stream().filter(s -> s == 409).count();
                Outcome outcome = new Outcome(accepted, soldOut, stock.left(ITEM), stock.soldWithTokens());
                out.println("accepted " + accepted + ", sold out " + soldOut + ", other "
                        + (ORDERS - accepted - soldOut) + "; left in stock: " + outcome.left());
                out.println("fencing tokens of the sales, in order: " + outcome.tokens());
                out.println(
                        outcome.soldEachOnce()
                                ? "Each pair sold once: no oversell, tokens rising."
                                : "FAILED: the stock was not sold exactly once.");
                out.printf("Done in %.1f s%n", (System.nanoTime() - started) / 1e9);
                return outcome;
            }
        }
    }

    /** Sends {@link #ORDERS} orders at once; their HTTP statuses. */
    private static List<Integer> sendOrders(int port) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        ExecutorService threads = Executors.newFixedThreadPool(20);
        try {
            List<CompletableFuture<Integer>> replies = new ArrayList<>();
            URI uri = URI.create("http://localhost:" + port + "/orders/" + ITEM);
            for (int i = 0; i < ORDERS; i++) {
                replies.add(CompletableFuture.supplyAsync(
                        () -> {
                            try {
                                return http.send(
                                                HttpRequest.newBuilder(uri)
                                                        .POST(HttpRequest.BodyPublishers.noBody())
                                                        .build(),
                                                HttpResponse.BodyHandlers.discarding())
                                        .statusCode();
                            } catch (Exception e) {
                                return -1;
                            }
                        },
                        threads));
            }
            List<Integer> statuses = new ArrayList<>();
            for (CompletableFuture<Integer> reply : replies) {
                statuses.add(reply.get());
            }
            return statuses;
        } finally {
            threads.shutdownNow();
        }
    }
}
