package io.leasehold.lock.testkit.redis;

import java.io.IOException;
import java.time.Duration;
import java.util.List;

/** Runs one admin command over a fresh {@link RespClient} connection; see {@link RedisNode#command}. */
final class Admin {

    private Admin() {}

    static Object call(RedisEndpoint endpoint, List<List<String>> preamble, Duration timeout, String... args) {
        try (RespClient client = RespClient.connect(endpoint, timeout)) {
            for (List<String> setup : preamble) {
                client.call(setup);
            }
            return client.call(args);
        } catch (IOException e) {
            throw new RedisFixtureException(
                    "admin command " + String.join(" ", args) + " to " + endpoint + " failed within " + timeout + ": "
                            + e,
                    e);
        }
    }
}
