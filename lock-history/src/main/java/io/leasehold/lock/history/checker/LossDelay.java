package io.leasehold.lock.history.checker;

/**
 * How promptly one lost lease was signalled.
 *
 * @param process the holder
 * @param lock the lock
 * @param token the lost lease's token
 * @param reason the loss reason
 * @param toldAt when the holder was told (the engine's detection time)
 * @param afterFaultMicros time from the start of the latest declared fault that began before the signal
 *     and during the section, to the signal; {@code null} when no fault was declared then
 * @param marginMicros time from the signal to the start of the next holder's section of the lock
 *     (positive: told before it began); {@code null} when no later section exists
 * @param notificationLagMicros from the detection to when the worker's callback wrote the record
 */
public record LossDelay(
        String process,
        String lock,
        long token,
        String reason,
        long toldAt,
        Long afterFaultMicros,
        Long marginMicros,
        long notificationLagMicros) {}
