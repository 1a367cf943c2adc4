package io.leasehold.lock;

/**
 * The lease ended while work ran under it: it expired, was taken over, could not be renewed
 * before its validity ran out, or hit its max-hold bound. The work may have overlapped with
 * another holder; use the {@linkplain Lease#fencingToken() fencing token} to make that harmless.
 */
public class LeaseLostException extends LockException {

    private static final long serialVersionUID = 1L;

    private final LeaseLoss loss;

    public LeaseLostException(LeaseLoss loss) {
        super(
                loss.lockName(),
                "lease on lock '" + loss.lockName() + "' (fencing token " + loss.fencingToken() + ") was lost: "
                        + loss.reason(),
                loss.cause().orElse(null));
        this.loss = loss;
    }

    /** Why and when the lease ended. */
    public LeaseLoss loss() {
        return loss;
    }
}
