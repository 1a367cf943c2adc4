package io.leasehold.lock.testkit.conformance;

import io.leasehold.lock.testkit.LockBackendFixture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * The conformance suite as a JUnit 5 test class: what every {@link io.leasehold.lock.spi.LockBackend}
 * must do, one test per scenario of {@code ConformanceScenarios}. A backend's test extends it and
 * supplies a fixture:
 *
 * <pre>{@code
 * class InMemoryConformanceTest extends LockConformanceSuite {
 *     @Override
 *     protected LockBackendFixture createFixture() {
 *         return new InMemoryFixture();
 *     }
 * }
 * }</pre>
 *
 * <p>One fixture serves the whole class (created before the first test, closed after the last);
 * its faults are cleared after every test. A scenario that needs a fault the fixture lists in
 * {@link LockBackendFixture#unsupportedFaults()} is reported as skipped, with the fixture's reason,
 * never as passed.
 *
 * <p>The scenarios themselves live in {@code ConformanceScenarios} (a Kotlin object: the Javadoc
 * tool cannot link it, the module's Dokka pages document it), shared with the kotest form
 * ({@code lockConformanceTests}); each test method here only names its scenario.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 180, unit = TimeUnit.SECONDS)
public abstract class LockConformanceSuite {

    private LockBackendFixture fixture;

    /** The fixture to run the suite against; called once per test class. */
    protected abstract LockBackendFixture createFixture();

    /** The fixture under test, for subclasses that add tests of their own. */
    protected final LockBackendFixture fixture() {
        if (fixture == null) {
            throw new IllegalStateException("the fixture is created before the first test of "
                    + getClass().getName());
        }
        return fixture;
    }

    @BeforeAll
    protected final void startFixture() {
        fixture = createFixture();
    }

    @AfterAll
    protected final void closeFixture() {
        if (fixture != null) {
            fixture.close();
        }
    }

    private void run(String scenarioName) {
        Scenario scenario = ConformanceScenarios.named(scenarioName);
        String skipReason = ConformanceScenarios.skipReason(scenario, fixture());
        if (skipReason != null) {
            Assumptions.abort(skipReason);
        }
        ConformanceScenarios.run(scenario, fixture());
    }

    // ---- G1 mutual exclusion (ExclusionScenarios.kt)
    /** G1, G3. */
    @Test
    public void shouldKeepMutualExclusionUnderConcurrentFuzz() {
        run("shouldKeepMutualExclusionUnderConcurrentFuzz");
    }
    /** G1, G9, G10. */
    @Test
    public void shouldRefuseSecondAcquirerWhileHeld() {
        run("shouldRefuseSecondAcquirerWhileHeld");
    }
    /** G1. */
    @Test
    public void shouldNotBlockIndependentNames() {
        run("shouldNotBlockIndependentNames");
    }
    /** G1, G3. */
    @Test
    public void shouldAcquireRightAfterRelease() {
        run("shouldAcquireRightAfterRelease");
    }
    /** G1, G6, G11. */
    @Test
    public void shouldFreeLockWhenLeaseExpires() {
        run("shouldFreeLockWhenLeaseExpires");
    }

    // ---- G2 atomic owner checks (StaleLeaseScenarios.kt)
    /** G2. */
    @Test
    public void shouldUseFreshRandomOwnerPerAcquisition() {
        run("shouldUseFreshRandomOwnerPerAcquisition");
    }
    /** G2; needs Fault.DELETE_KEY. */
    @Test
    public void shouldNotReleaseAnotherOwnersLock() {
        run("shouldNotReleaseAnotherOwnersLock");
    }
    /** G2, G6; needs Fault.DELETE_KEY. */
    @Test
    public void shouldNotExtendAnotherOwnersLock() {
        run("shouldNotExtendAnotherOwnersLock");
    }
    /** G2, G11. */
    @Test
    public void shouldNotReleaseOrExtendAnotherOwnersLockAfterExpiry() {
        run("shouldNotReleaseOrExtendAnotherOwnersLockAfterExpiry");
    }

    // ---- G3 fencing tokens (FencingScenarios.kt)
    /** G3. */
    @Test
    public void shouldIncreaseFencingTokensAcrossHoldersAndExpiry() {
        run("shouldIncreaseFencingTokensAcrossHoldersAndExpiry");
    }
    /** G3; needs Fault.FLUSH_ALL. */
    @Test
    public void shouldIncreaseFencingTokensAcrossDataLoss() {
        run("shouldIncreaseFencingTokensAcrossDataLoss");
    }

    // ---- G4 conservative validity (ValidityScenarios.kt)
    /** G4. */
    @Test
    public void shouldNeverReportMoreRemainingThanTrueTtl() {
        run("shouldNeverReportMoreRemainingThanTrueTtl");
    }
    /** G4; needs Fault.LATENCY. */
    @Test
    public void shouldNotCountLatencyAsValidity() {
        run("shouldNotCountLatencyAsValidity");
    }

    // ---- G5 auto-renew, batching, max hold (RenewalScenarios.kt)
    /** G5. */
    @Test
    public void shouldKeepLockPastSeveralLeaseTimesWithAutoRenew() {
        run("shouldKeepLockPastSeveralLeaseTimesWithAutoRenew");
    }
    /** G5. */
    @Test
    public void shouldBatchRenewalsOfManyLeases() {
        run("shouldBatchRenewalsOfManyLeases");
    }
    /** G5, G6. */
    @Test
    public void shouldStopRenewalAtMaxHoldAndSignalMaxHoldExceeded() {
        run("shouldStopRenewalAtMaxHoldAndSignalMaxHoldExceeded");
    }

    // ---- G6 loss signals (LossScenarios.kt)
    /** G6, G11; needs Fault.DELETE_KEY. */
    @Test
    public void shouldSignalStolenWhenLockIsDeletedBehindHoldersBack() {
        run("shouldSignalStolenWhenLockIsDeletedBehindHoldersBack");
    }
    /** G3, G6; needs Fault.EXPIRE_NOW. */
    @Test
    public void shouldSignalStolenWhenLockExpiresEarlyAndLetNextOwnerIn() {
        run("shouldSignalStolenWhenLockExpiresEarlyAndLetNextOwnerIn");
    }
    /** G4, G6; needs Fault.UNAVAILABLE. */
    @Test
    public void shouldSignalBackendUnavailableBeforeServerSideExpiry() {
        run("shouldSignalBackendUnavailableBeforeServerSideExpiry");
    }
    /** G2, G6, G7. */
    @Test
    public void shouldWakeWaiterAndSignalStolenOnForceRelease() {
        run("shouldWakeWaiterAndSignalStolenOnForceRelease");
    }
    /** G6; needs Fault.DELETE_KEY. */
    @Test
    public void shouldInterruptCallLockedBodyOnLoss() {
        run("shouldInterruptCallLockedBodyOnLoss");
    }

    // ---- G6, G12 how a lease ends, as every observer sees it (LeaseEndingScenarios.kt)
    /** G2, G6. */
    @Test
    public void shouldEndLeaseLostWhenItsReleaseFindsTheLockGone() {
        run("shouldEndLeaseLostWhenItsReleaseFindsTheLockGone");
    }
    /** G1, G2, G6. */
    @Test
    public void shouldEndLeaseLostWhenItsReleaseFindsAnotherOwnersLock() {
        run("shouldEndLeaseLostWhenItsReleaseFindsAnotherOwnersLock");
    }
    /** G6, G9; needs Fault.UNAVAILABLE. */
    @Test
    public void shouldEndLeaseReleasedUnconfirmedWhenRedisCannotBeReachedUntilTheReleaseGivesUp() {
        run("shouldEndLeaseReleasedUnconfirmedWhenRedisCannotBeReachedUntilTheReleaseGivesUp");
    }
    /** G4, G6; needs Fault.LATENCY. */
    @Test
    public void shouldEndLeaseReleasedUnconfirmedWhenRedisAnswersTheReleaseOnlyAfterTheLeaseRanOut() {
        run("shouldEndLeaseReleasedUnconfirmedWhenRedisAnswersTheReleaseOnlyAfterTheLeaseRanOut");
    }
    /** G6, G12. */
    @Test
    public void shouldEndHeldLeasesLostAndTellTheirHoldersBeforeFreeingTheLocksOnClose() {
        run("shouldEndHeldLeasesLostAndTellTheirHoldersBeforeFreeingTheLocksOnClose");
    }
    /** G8, G12; needs Fault.LATENCY. */
    @Test
    public void shouldSettleAReleaseAskedBeforeCloseWhileItsHandoffIsOnItsWay() {
        run("shouldSettleAReleaseAskedBeforeCloseWhileItsHandoffIsOnItsWay");
    }
    /** G4, G6; needs Fault.FREEZE. */
    @Test
    public void shouldGoUncertainBeforeLostWhenRedisStopsAnsweringAtEveryLeaseTime() {
        run("shouldGoUncertainBeforeLostWhenRedisStopsAnsweringAtEveryLeaseTime");
    }

    // ---- G7 waiting without polling, G9 timeouts (WaitingScenarios.kt)
    /** G7. */
    @Test
    public void shouldWakeWaiterOnReleaseWellBeforeFallbackRetry() {
        run("shouldWakeWaiterOnReleaseWellBeforeFallbackRetry");
    }
    /** G7. */
    @Test
    public void shouldNotPollWhileWaiting() {
        run("shouldNotPollWhileWaiting");
    }
    /** G7. */
    @Test
    public void shouldShareOneSubscriptionAmongLocalWaiters() {
        run("shouldShareOneSubscriptionAmongLocalWaiters");
    }
    /** G7, G9. */
    @Test
    public void shouldReturnWithinBoundWhenWaitTimesOut() {
        run("shouldReturnWithinBoundWhenWaitTimesOut");
    }

    // ---- G7 handoffs on the contended path, G2/G3 for them (HandoffScenarios.kt)
    /** G7, G2, G3. */
    @Test
    public void shouldHandTheLockToTheNextLocalWaiterInTheReleaseCall() {
        run("shouldHandTheLockToTheNextLocalWaiterInTheReleaseCall");
    }
    /** G7. */
    @Test
    public void shouldQueueANewcomerBehindLocalWaitersWithoutAnAttempt() {
        run("shouldQueueANewcomerBehindLocalWaitersWithoutAnAttempt");
    }
    /** G7. */
    @Test
    public void shouldLetAnotherClientsWaiterInWhileLocalWaitersPassTheLockAround() {
        run("shouldLetAnotherClientsWaiterInWhileLocalWaitersPassTheLockAround");
    }
    /** G7, G8. */
    @Test
    public void shouldHandTheLockOverOnceWhenTheHandoffReplyIsLost() {
        run("shouldHandTheLockOverOnceWhenTheHandoffReplyIsLost");
    }

    // ---- G8 clean cancellation (CancellationScenarios.kt)
    /** G8. */
    @Test
    public void shouldLeaveNoLockWhenWaitIsCancelled() {
        run("shouldLeaveNoLockWhenWaitIsCancelled");
    }
    /** G8. */
    @Test
    public void shouldLeaveNoLockWhenWaitingThreadIsInterrupted() {
        run("shouldLeaveNoLockWhenWaitingThreadIsInterrupted");
    }
    /** G8, G9; needs Fault.LOSE_REPLY. */
    @Test
    public void shouldLeaveNoOrphanWhenAcquireReplyIsLost() {
        run("shouldLeaveNoOrphanWhenAcquireReplyIsLost");
    }
    /** G8, G9; needs Fault.LOSE_REPLY. */
    @Test
    public void shouldRetryAnAcquireWhoseReplyIsLostWhileTheWaitHasTimeLeft() {
        run("shouldRetryAnAcquireWhoseReplyIsLostWhileTheWaitHasTimeLeft");
    }
    /** G8; needs Fault.LATENCY. */
    @Test
    public void shouldLeaveNoOrphanWhenAcquireInFlightIsCancelled() {
        run("shouldLeaveNoOrphanWhenAcquireInFlightIsCancelled");
    }

    // ---- callLocked / runLocked / callLockedAsync: release on every path (G8), reentrancy by thread (G10)
    // (BodyScenarios.kt)
    /** G8. */
    @Test
    public void shouldReleaseWhenCallLockedBodyThrows() {
        run("shouldReleaseWhenCallLockedBodyThrows");
    }
    /** G8. */
    @Test
    public void shouldReleaseWhenCallLockedAsyncStageCompletes() {
        run("shouldReleaseWhenCallLockedAsyncStageCompletes");
    }
    /** G10. */
    @Test
    public void shouldReenterCallLockedOnSameThreadOnly() {
        run("shouldReenterCallLockedOnSameThreadOnly");
    }

    // ---- Kotlin withLock and await* (G6, G8, G9, G10) (KotlinScenarios.kt)
    /** G6; needs Fault.DELETE_KEY. */
    @Test
    public void shouldCancelWithLockBlockOnLossAndThrowLeaseLost() {
        run("shouldCancelWithLockBlockOnLossAndThrowLeaseLost");
    }
    /** G8. */
    @Test
    public void shouldReleaseWhenWithLockBlockThrows() {
        run("shouldReleaseWhenWithLockBlockThrows");
    }
    /** G10. */
    @Test
    public void shouldReenterWithLockInSameCoroutineAndChildren() {
        run("shouldReenterWithLockInSameCoroutineAndChildren");
    }
    /** G10. */
    @Test
    public void shouldNotReenterWithLockAcrossSiblingCoroutines() {
        run("shouldNotReenterWithLockAcrossSiblingCoroutines");
    }
    /** G8. */
    @Test
    public void shouldLeaveNoLockWhenWithLockIsCancelledWhileWaiting() {
        run("shouldLeaveNoLockWhenWithLockIsCancelledWhileWaiting");
    }
    /** G8. */
    @Test
    public void shouldReleaseWhenWithLockIsCancelledWhileHolding() {
        run("shouldReleaseWhenWithLockIsCancelledWhileHolding");
    }
    /** G9. */
    @Test
    public void shouldReportContentionToCoroutinesAsNullOrTimeout() {
        run("shouldReportContentionToCoroutinesAsNullOrTimeout");
    }

    // ---- G10 hold queries: current thread and current coroutine (HoldQueryScenarios.kt)
    /** G10. */
    @Test
    public void shouldTellWhetherTheCurrentThreadHoldsTheLockAndHowManyCallsDeep() {
        run("shouldTellWhetherTheCurrentThreadHoldsTheLockAndHowManyCallsDeep");
    }
    /** G10. */
    @Test
    public void shouldTellWhetherTheCurrentCoroutineHoldsTheLockAndHowManyBlocksDeep() {
        run("shouldTellWhetherTheCurrentCoroutineHoldsTheLockAndHowManyBlocksDeep");
    }
    /** G6, G10; needs Fault.DELETE_KEY. */
    @Test
    public void shouldNotCountALostOrReleasedLeaseAsHeld() {
        run("shouldNotCountALostOrReleasedLeaseAsHeld");
    }

    // ---- G9 three outcomes (OutcomeScenarios.kt)
    /** G9. */
    @Test
    public void shouldReportContentionAsTimeoutNotFailure() {
        run("shouldReportContentionAsTimeoutNotFailure");
    }
    /** G9; needs Fault.UNAVAILABLE. */
    @Test
    public void shouldReportUnreachableBackendAsBackendFailureNotContention() {
        run("shouldReportUnreachableBackendAsBackendFailureNotContention");
    }

    // ---- G11 bad input (InputScenarios.kt)
    /** G11. */
    @Test
    public void shouldRejectBadLockNamesWithClearMessages() {
        run("shouldRejectBadLockNamesWithClearMessages");
    }
    /** G11. */
    @Test
    public void shouldRejectBadWaitsWithClearMessages() {
        run("shouldRejectBadWaitsWithClearMessages");
    }
    /** G11. */
    @Test
    public void shouldRejectBadLeaseDurationsWithClearMessages() {
        run("shouldRejectBadLeaseDurationsWithClearMessages");
    }
    /** G11, G12. */
    @Test
    public void shouldRejectUseAfterClose() {
        run("shouldRejectUseAfterClose");
    }
    /** G11. */
    @Test
    public void shouldTreatDoubleReleaseAsNoOp() {
        run("shouldTreatDoubleReleaseAsNoOp");
    }
    /** G11. */
    @Test
    public void shouldRejectExtendAfterRelease() {
        run("shouldRejectExtendAfterRelease");
    }

    // ---- G12 lifecycle (LifecycleScenarios.kt)
    /** G12. */
    @Test
    public void shouldReleaseHeldLeasesOnClose() {
        run("shouldReleaseHeldLeasesOnClose");
    }
    /** G12. */
    @Test
    public void shouldLeaveNoLeaseholdThreadsAfterClose() {
        run("shouldLeaveNoLeaseholdThreadsAfterClose");
    }
    /** G12. */
    @Test
    public void shouldCloseIdempotently() {
        run("shouldCloseIdempotently");
    }

    // ---- attacks on the guarantees: cancellation races, lost and late replies, blocking user code, and more
    /** G8. */
    @Test
    public void shouldLeaveNothingHeldWhenJavaAsyncCallsAreCancelledAtRandomMoments() {
        run("shouldLeaveNothingHeldWhenJavaAsyncCallsAreCancelledAtRandomMoments");
    }
    /** G8. */
    @Test
    public void shouldLeaveNothingHeldWhenSuspendCallsAreCancelledAtRandomMoments() {
        run("shouldLeaveNothingHeldWhenSuspendCallsAreCancelledAtRandomMoments");
    }
    /** G8. */
    @Test
    public void shouldCancelTheBodyAndReleaseWhenCallLockedAsyncIsCancelledWhileTheBodyRuns() {
        run("shouldCancelTheBodyAndReleaseWhenCallLockedAsyncIsCancelledWhileTheBodyRuns");
    }
    /** G8. */
    @Test
    public void shouldReleaseALeaseWhoseCallerCancelledTheCoroutineAfterItWasGranted() {
        run("shouldReleaseALeaseWhoseCallerCancelledTheCoroutineAfterItWasGranted");
    }
    /** G3; needs Fault.WRITE_KEY. */
    @Test
    public void shouldIncreaseFencingTokensWhenTheCounterFallsBehind() {
        run("shouldIncreaseFencingTokensWhenTheCounterFallsBehind");
    }
    /** G1, G11. */
    @Test
    public void shouldLockEveryAcceptedNameOnItsOwnOnEveryTopology() {
        run("shouldLockEveryAcceptedNameOnItsOwnOnEveryTopology");
    }
    /** G11. */
    @Test
    public void shouldRejectAnExtendShorterThanTheMinimumLease() {
        run("shouldRejectAnExtendShorterThanTheMinimumLease");
    }
    /** G9, G10, G11. */
    @Test
    public void shouldSayThatThisClientHoldsTheLockWhenItAcquiresItAgain() {
        run("shouldSayThatThisClientHoldsTheLockWhenItAcquiresItAgain");
    }
    /** G12. */
    @Test
    public void shouldBoundTheWholeCloseIncludingTheBackend() {
        run("shouldBoundTheWholeCloseIncludingTheBackend");
    }
    /** G9; needs Fault.UNAVAILABLE. */
    @Test
    public void shouldRetryATransientBackendFailureWhileTheWaitHasTimeLeft() {
        run("shouldRetryATransientBackendFailureWhileTheWaitHasTimeLeft");
    }
    /** G5, G6. */
    @Test
    public void shouldKeepAnAutoRenewedLeaseAfterExtendingItToAShorterTime() {
        run("shouldKeepAnAutoRenewedLeaseAfterExtendingItToAShorterTime");
    }
    /** G5, G6; needs Fault.FOREIGN_KEY. */
    @Test
    public void shouldRenewOtherLeasesWhenOneLockKeyHoldsAForeignValue() {
        run("shouldRenewOtherLeasesWhenOneLockKeyHoldsAForeignValue");
    }
    /** G4; needs Fault.LOSE_REPLY. */
    @Test
    public void shouldAssumeTheShorterTtlWhenAnExtendReplyIsLost() {
        run("shouldAssumeTheShorterTtlWhenAnExtendReplyIsLost");
    }
    /** G4; needs Fault.LATENCY. */
    @Test
    public void shouldAssumeTheShorterTtlWhileAnExtendIsInFlight() {
        run("shouldAssumeTheShorterTtlWhileAnExtendIsInFlight");
    }
    /** G4, G5; needs Fault.LOSE_REPLY. */
    @Test
    public void shouldKeepALeaseWhoseRenewReplyWasLost() {
        run("shouldKeepALeaseWhoseRenewReplyWasLost");
    }
    /** G8; needs Fault.LOSE_REPLY. */
    @Test
    public void shouldStopRenewingWhenAReleaseReplyIsLost() {
        run("shouldStopRenewingWhenAReleaseReplyIsLost");
    }
    /** G7, G9; needs Fault.SUBSCRIBE_LATENCY. */
    @Test
    public void shouldKeepWaitingAndUnsubscribeWhenASubscribeIsSlow() {
        run("shouldKeepWaitingAndUnsubscribeWhenASubscribeIsSlow");
    }
    /** G5, G13. */
    @Test
    public void shouldKeepRenewingWhileAUserContinuationBlocks() {
        run("shouldKeepRenewingWhileAUserContinuationBlocks");
    }
    /** G6, G13; needs Fault.DELETE_KEY. */
    @Test
    public void shouldSignalALossWhileAnotherLeasesLostDependentBlocks() {
        run("shouldSignalALossWhileAnotherLeasesLostDependentBlocks");
    }
    /** G6, G13; needs Fault.DELETE_KEY. */
    @Test
    public void shouldSignalALossWhileAListenerBlocks() {
        run("shouldSignalALossWhileAListenerBlocks");
    }
    /** G6; needs Fault.DELETE_KEY. */
    @Test
    public void shouldThrowLeaseLostFromWithLockWhenTheLossPrecedesTheBlocksReturn() {
        run("shouldThrowLeaseLostFromWithLockWhenTheLossPrecedesTheBlocksReturn");
    }
    /** G6, G10; needs Fault.DELETE_KEY. */
    @Test
    public void shouldNotReenterWithLockOnALostLease() {
        run("shouldNotReenterWithLockOnALostLease");
    }
    /** G6; needs Fault.DELETE_KEY. */
    @Test
    public void shouldFailCallLockedAsyncWhenTheLossPrecedesTheBodysCompletion() {
        run("shouldFailCallLockedAsyncWhenTheLossPrecedesTheBodysCompletion");
    }
    /** G6. */
    @Test
    public void shouldTellTheHolderOfALossBeforeAnotherNodeAcquires() {
        run("shouldTellTheHolderOfALossBeforeAnotherNodeAcquires");
    }
    /** G4, G6; needs Fault.LATENCY. */
    @Test
    public void shouldNeverHandOutALeaseThatIsNoLongerValid() {
        run("shouldNeverHandOutALeaseThatIsNoLongerValid");
    }
    /** G7, G9. */
    @Test
    public void shouldMakeAtLeastOneAttemptEvenWhenTheWaitIsTiny() {
        run("shouldMakeAtLeastOneAttemptEvenWhenTheWaitIsTiny");
    }
    /** G13; needs Fault.DELETE_KEY. */
    @Test
    public void shouldRunUserCodeOnlyOnTheCallbackExecutor() {
        run("shouldRunUserCodeOnlyOnTheCallbackExecutor");
    }
    /** G4, G5, G6; needs Fault.LATENCY. */
    @Test
    public void shouldKeepALeaseWhoseShorterExtendRacesARenewalInFlight() {
        run("shouldKeepALeaseWhoseShorterExtendRacesARenewalInFlight");
    }
    /** G8, G10. */
    @Test
    public void shouldHandTheLeaseToCallWithLeaseAndRunWithLeaseBodies() {
        run("shouldHandTheLeaseToCallWithLeaseAndRunWithLeaseBodies");
    }
    /** G8, G9; needs Fault.LATENCY. */
    @Test
    public void shouldLeaveNothingBehindWhenEveryReplyComesAfterTheCommandTimeout() {
        run("shouldLeaveNothingBehindWhenEveryReplyComesAfterTheCommandTimeout");
    }
    /** G6, G8; needs Fault.DELETE_KEY. */
    @Test
    public void shouldReportLeaseLostWhenTheReleaseFindsTheLockGone() {
        run("shouldReportLeaseLostWhenTheReleaseFindsTheLockGone");
    }
    /** G8, G9; needs Fault.UNAVAILABLE. */
    @Test
    public void shouldRetryAReleaseThatFailsTransiently() {
        run("shouldRetryAReleaseThatFailsTransiently");
    }
    /** G6, G8. */
    @Test
    public void shouldNotReportALossWhenTheBodyReleasedItsLeaseItself() {
        run("shouldNotReportALossWhenTheBodyReleasedItsLeaseItself");
    }
    /** G6; needs Fault.UNAVAILABLE. */
    @Test
    public void shouldGoUncertainAndBackToHeldWhenTheBackendIsAwayForLessThanTheLease() {
        run("shouldGoUncertainAndBackToHeldWhenTheBackendIsAwayForLessThanTheLease");
    }
    /** G4, G6; needs Fault.UNAVAILABLE. */
    @Test
    public void shouldGoUncertainBeforeLostWhenTheBackendStaysAwayPastTheLease() {
        run("shouldGoUncertainBeforeLostWhenTheBackendStaysAwayPastTheLease");
    }
    /** G7, G8. */
    @Test
    public void shouldTellListenersOfWaitsHandoffsAndCancellations() {
        run("shouldTellListenersOfWaitsHandoffsAndCancellations");
    }
}
