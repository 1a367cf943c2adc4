package io.leasehold.lock.testkit.faults;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The faults a {@link FaultProxy} applies at one moment: an immutable value, replaced as a whole on
 * every change so that a pump always sees one consistent set.
 *
 * @param toTargetLatencyNanos delay added to each chunk travelling to the target
 * @param toClientLatencyNanos delay added to each chunk travelling to the client
 * @param toTarget the silence on the way to the target, or {@code null} while bytes flow
 * @param toClient the silence on the way to the client, or {@code null} while bytes flow
 * @param refusing whether new connections are reset as soon as they are accepted
 */
record Faults(
        long toTargetLatencyNanos, long toClientLatencyNanos, Silence toTarget, Silence toClient, boolean refusing) {

    static final Faults NONE = new Faults(0, 0, null, null, false);

    long latencyNanos(Direction direction) {
        return direction == Direction.CLIENT_TO_TARGET ? toTargetLatencyNanos : toClientLatencyNanos;
    }

    /** The silence on {@code direction}, or {@code null} while its bytes flow. */
    Silence silence(Direction direction) {
        return direction == Direction.CLIENT_TO_TARGET ? toTarget : toClient;
    }

    Faults withLatency(Direction direction, long nanos) {
        return direction == Direction.CLIENT_TO_TARGET
                ? new Faults(nanos, toClientLatencyNanos, toTarget, toClient, refusing)
                : new Faults(toTargetLatencyNanos, nanos, toTarget, toClient, refusing);
    }

    Faults withSilence(Direction direction, Silence silence) {
        return direction == Direction.CLIENT_TO_TARGET
                ? new Faults(toTargetLatencyNanos, toClientLatencyNanos, silence, toClient, refusing)
                : new Faults(toTargetLatencyNanos, toClientLatencyNanos, toTarget, silence, refusing);
    }

    Faults withRefusing(boolean refuse) {
        return new Faults(toTargetLatencyNanos, toClientLatencyNanos, toTarget, toClient, refuse);
    }

    /** E.g. {@code latency to-target PT0.3S, to-client silenced (HOLD)}, or {@code none}. */
    String describe() {
        List<String> parts = new ArrayList<>();
        for (Direction direction : Direction.values()) {
            if (latencyNanos(direction) > 0) {
                parts.add("latency " + direction.shortName() + " " + Duration.ofNanos(latencyNanos(direction)));
            }
            if (silence(direction) != null) {
                parts.add(direction.shortName() + " silenced (" + silence(direction) + ")");
            }
        }
        if (refusing) {
            parts.add("refusing new connections");
        }
        return parts.isEmpty() ? "none" : String.join(", ", parts);
    }
}
