package io.leasehold.lock.testkit.redis;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Sends Unix signals with the {@code kill} command, since Java has no signal API. Several pids go
 * in one command so that, e.g., all nodes of a cluster stop and resume within microseconds of each
 * other and none of them sees its peers as failed.
 */
final class Signals {

    private Signals() {}

    static void send(String signal, List<Long> pids) {
        if (pids.isEmpty()) {
            return;
        }
        List<String> command = new ArrayList<>();
        command.add("kill");
        command.add("-" + signal);
        pids.forEach(pid -> command.add(Long.toString(pid)));
        try {
            Process kill = new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (!kill.waitFor(10, TimeUnit.SECONDS)) {
                kill.destroyForcibly();
                throw new RedisFixtureException(String.join(" ", command) + " did not finish within 10 s");
            }
            if (kill.exitValue() != 0) {
                throw new RedisFixtureException(
                        String.join(" ", command) + " failed with exit code " + kill.exitValue() + ": " + output);
            }
        } catch (IOException e) {
            throw new RedisFixtureException("cannot run " + String.join(" ", command) + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RedisFixtureException("interrupted while running " + String.join(" ", command), e);
        }
    }
}
