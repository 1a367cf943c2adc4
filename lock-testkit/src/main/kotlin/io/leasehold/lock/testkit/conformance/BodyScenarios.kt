package io.leasehold.lock.testkit.conformance

import io.leasehold.lock.LockTimeoutException
import io.leasehold.lock.spi.ScriptNames
import java.io.IOException
import java.time.Duration
import java.util.concurrent.CompletableFuture

// Java callLocked/runLocked/callLockedAsync: release on every path (G8) and reentrancy by thread (G10).

internal val bodyScenarios: List<Scenario> = listOf(

    scenario("shouldReleaseWhenCallLockedBodyThrows", "G8") {
        val a = newClient()
        val b = newClient()
        // When callLocked's body throws an unchecked exception
        val boom = IllegalStateException("boom")
        val thrown = shouldThrow<IllegalStateException> { a.lock(lockName).callLocked<Unit>(Timing.ACQUIRE_WAIT) { throw boom } }
        // Then that very exception propagates, and the lock was released before it did
        thrown shouldBeSameInstanceAs boom
        withClue("isLocked() right after callLocked threw") { b.lock(lockName).isLocked shouldBe false }
        // And the same for a checked exception, and for runLocked
        val io = IOException("checked boom")
        shouldThrow<IOException> { a.lock(lockName).callLocked<Unit>(Timing.ACQUIRE_WAIT) { throw io } } shouldBeSameInstanceAs io
        withClue("isLocked() right after callLocked threw a checked exception") { b.lock(lockName).isLocked shouldBe false }
        shouldThrow<IllegalArgumentException> { a.lock(lockName).runLocked(Timing.ACQUIRE_WAIT) { throw IllegalArgumentException("run boom") } }
        withClue("isLocked() right after runLocked threw") { b.lock(lockName).isLocked shouldBe false }
        b.lock(lockName).tryAcquire().present("tryAcquire() after the failed bodies").use { }
    },

    scenario("shouldReleaseWhenCallLockedAsyncStageCompletes", "G8") {
        val a = newClient()
        val b = newClient()
        // Given an async body whose stage is still running
        val stage = CompletableFuture<String>()
        val started = CompletableFuture<Long>()
        val result = a.lock(lockName).callLockedAsync(Timing.ACQUIRE_WAIT) { lease ->
            started.complete(lease.fencingToken())
            stage
        }
        val token = started.value("the async body starts")
        withClue("holder while the body's stage runs") {
            b.lock(lockName).inspect().present("inspect()").fencingToken() shouldBe token
        }
        // When the stage completes, the result carries its value and the lock is released
        stage.complete("done")
        withClue("callLockedAsync result") { result.value("callLockedAsync result") shouldBe "done" }
        await("the lock is released after the stage completed") { !b.lock(lockName).isLocked }
        // And when a stage fails, the result fails with its exception and the lock is released too
        val boom = IllegalStateException("async boom")
        val failed = a.lock(lockName).callLockedAsync<String>(Timing.ACQUIRE_WAIT) { CompletableFuture.failedFuture(boom) }
        failed.failure("callLockedAsync with a failing stage").unwrapped() shouldBeSameInstanceAs boom
        await("the lock is released after the stage failed") { !b.lock(lockName).isLocked }
    },

    scenario("shouldReenterCallLockedOnSameThreadOnly", "G10") {
        val node = newNode()
        val b = newClient()
        val lock = node.client.lock(lockName)
        val outcome = lock.callLocked(Timing.ACQUIRE_WAIT) {
            val acquiresBefore = node.counter.count(ScriptNames.ACQUIRE)
            // When the same thread nests callLocked and runLocked, also through an equal handle
            val inner = node.client.lock(lockName).callLocked(Timing.ACQUIRE_WAIT) {
                lock.runLocked(Duration.ZERO) { }
                "inner"
            }
            // Then the nested calls made no acquisition and released nothing
            withClue("acquire calls made by nested callLocked/runLocked") {
                node.counter.count(ScriptNames.ACQUIRE) shouldBe acquiresBefore
            }
            withClue("isLocked() after the nested calls returned") { b.lock(lockName).isLocked shouldBe true }
            // And another thread of the same node is refused
            val otherThread = startThread("other-thread") {
                runCatching { node.client.lock(lockName).callLocked(Timing.SHORT_WAIT) { "entered" } }
            }.result.value("callLocked on another thread")
            withClue("callLocked on another thread while held: $otherThread") {
                otherThread.exceptionOrNull().shouldBeInstanceOf<LockTimeoutException>()
            }
            inner
        }
        withClue("outer callLocked result") { outcome shouldBe "inner" }
        withClue("isLocked() after the outer callLocked returned") { b.lock(lockName).isLocked shouldBe false }
    },

    scenario("shouldHandTheLeaseToCallWithLeaseAndRunWithLeaseBodies", "G8, G10") {
        val node = newNode()
        val b = newClient()
        val lock = node.client.lock(lockName)
        // When a body asks for its lease, to fence the resource it protects
        val outcome = lock.callWithLease(Timing.ACQUIRE_WAIT) { lease ->
            // Then it gets the lease that holds the lock: valid, with the holder's token
            withClue("isValid() of the body's lease") { lease.isValid shouldBe true }
            withClue("holder token seen from another node") {
                b.lock(lockName).inspect().present("inspect()").fencingToken() shouldBe lease.fencingToken()
            }
            // And a nested call on this thread gets the same lease, without a Redis call
            val acquiresBefore = node.counter.count(ScriptNames.ACQUIRE)
            lock.runWithLease(Duration.ZERO) { inner -> withClue("nested runWithLease lease") { (inner === lease) shouldBe true } }
            lock.callLocked(Duration.ZERO) { "plain nested" }
            withClue("acquire calls made by the nested calls") { node.counter.count(ScriptNames.ACQUIRE) shouldBe acquiresBefore }
            lease.fencingToken()
        }
        withClue("isLocked() after callWithLease returned") { b.lock(lockName).isLocked shouldBe false }
        // And a runWithLease body that throws releases too, with its own exception
        val boom = IllegalStateException("boom")
        shouldThrow<IllegalStateException> { lock.runWithLease(Timing.ACQUIRE_WAIT) { throw boom } } shouldBeSameInstanceAs boom
        withClue("isLocked() after runWithLease threw") { b.lock(lockName).isLocked shouldBe false }
        b.lock(lockName).tryAcquire().present("tryAcquire() after the bodies").use { withClue("token order") { (it.fencingToken() > outcome) shouldBe true } }
    },
)

