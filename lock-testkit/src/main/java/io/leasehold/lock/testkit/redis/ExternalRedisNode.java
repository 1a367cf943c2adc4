package io.leasehold.lock.testkit.redis;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A Redis server this fixture did not start, named by {@code REDIS_URL}
 * ({@code redis://[[user]:password@]host[:port][/db]}). Admin commands authenticate and select the
 * database as the URL says. It cannot be killed, restarted or paused: there is no process of ours
 * to signal.
 *
 * <p>This class is immutable and threadsafe.
 */
public final class ExternalRedisNode implements RedisNode {

    private static final String NO_PROCESS = "REDIS_URL names an external server that this fixture did not start,"
            + " so it has no process to kill, restart or pause; use a local redis-server for this fault";

    private final RedisEndpoint endpoint;
    private final List<List<String>> preamble;

    private ExternalRedisNode(RedisEndpoint endpoint, List<List<String>> preamble) {
        this.endpoint = endpoint;
        this.preamble = preamble;
    }

    /** Parses a {@code redis://} URL; {@code rediss://} (TLS) is not supported by the admin client. */
    public static ExternalRedisNode fromUrl(String url) {
        URI uri;
        try {
            uri = new URI(url.trim());
        } catch (URISyntaxException e) {
            throw new RedisFixtureException(
                    "REDIS_URL must look like redis://[[user]:password@]host[:port][/db]," + " but was '" + url + "'",
                    e);
        }
        if (!"redis".equals(uri.getScheme()) || uri.getHost() == null) {
            throw new RedisFixtureException("REDIS_URL must look like redis://[[user]:password@]host[:port][/db]"
                    + " (TLS is not supported by the fixtures), but was '" + url + "'");
        }
        List<List<String>> preamble = new ArrayList<>();
        String userInfo = uri.getUserInfo();
        if (userInfo != null && !userInfo.isEmpty()) {
            int colon = userInfo.indexOf(':');
            String user = colon < 0 ? "" : userInfo.substring(0, colon);
            String password = colon < 0 ? userInfo : userInfo.substring(colon + 1);
            preamble.add(user.isEmpty() ? List.of("AUTH", password) : List.of("AUTH", user, password));
        }
        String path = uri.getPath();
        if (path != null && path.length() > 1) {
            preamble.add(List.of("SELECT", path.substring(1)));
        }
        int port = uri.getPort() < 0 ? 6379 : uri.getPort();
        return new ExternalRedisNode(new RedisEndpoint(uri.getHost(), port), List.copyOf(preamble));
    }

    @Override
    public RedisEndpoint endpoint() {
        return endpoint;
    }

    @Override
    public Object command(Duration timeout, String... args) {
        return Admin.call(endpoint, preamble, timeout, args);
    }

    @Override
    public void kill() {
        throw new UnsupportedOperationException(NO_PROCESS);
    }

    @Override
    public void restart() {
        throw new UnsupportedOperationException(NO_PROCESS);
    }

    @Override
    public void pause() {
        throw new UnsupportedOperationException(NO_PROCESS);
    }

    @Override
    public void resume() {
        throw new UnsupportedOperationException(NO_PROCESS);
    }

    @Override
    public boolean isPaused() {
        return false;
    }

    @Override
    public boolean isRunning() {
        return true;
    }

    @Override
    public Map<Control, String> unsupportedControls() {
        return Map.of(Control.KILL_AND_RESTART, NO_PROCESS, Control.PAUSE, NO_PROCESS);
    }

    @Override
    public String toString() {
        return "external Redis at " + endpoint;
    }
}
