package io.leasehold.lock.internal;

import java.util.concurrent.TimeoutException;

/**
 * A fair waiter's attempt went unanswered within the short time it first waits (at most
 * {@link GrantOrder#WAITER_RENEW_MS}, so that a lost reply does not let its place in the queue lapse),
 * which may be well within the command timeout: no evidence yet that Redis cannot be reached. The
 * wait asks again with the same owner and the whole command timeout, and that reply decides, even
 * if the wait's deadline has passed meanwhile (see {@code AcquisitionMachine#failed}).
 */
final class PlaceTimeoutException extends TimeoutException {

    private static final long serialVersionUID = 1L;

    PlaceTimeoutException(String message) {
        super(message);
    }
}
