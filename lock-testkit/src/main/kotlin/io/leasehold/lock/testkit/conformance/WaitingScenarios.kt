package io.leasehold.lock.testkit.conformance

import io.leasehold.lock.LockTimeoutException
import io.leasehold.lock.spi.ScriptNames
import java.time.Duration

// G7: waiting is driven by the release channel, with a TTL-bounded fallback; no polling.
// G9 for the timeout outcome.

internal val waitingScenarios: List<Scenario> = listOf(

    scenario("shouldWakeWaiterOnReleaseWellBeforeFallbackRetry", "G7") {
        // Given a holder whose lease would only run out after 20 s, and a waiter on another node
        val holderLease = Duration.ofSeconds(20)
        val a = newClient()
        val waiter = newNode()
        val held = a.lock(lockName, options(leaseTime = holderLease, autoRenew = false)).acquire(Timing.ACQUIRE_WAIT)
        val waiting = waiter.client.lock(lockName).acquireAsync(Duration.ofSeconds(30))
        await("the waiter has tried once and subscribed") {
            waiter.counter.count(ScriptNames.ACQUIRE) >= 1 && waiter.counter.subscribeCount() >= 1
        }
        // When the holder releases
        val releasedAt = System.nanoTime()
        withClue("release() by the holder") { held.release() shouldBe true }
        // Then the waiter gets the lock soon, not when the holder's TTL would have run out
        val wakeBound = Duration.ofSeconds(5)
        val next = waiting.value("the waiter's lease after the release", wakeBound)
        withClue("time from release to the waiter's lease (the fallback retry would come after $holderLease)") {
            elapsedSince(releasedAt) shouldBeLessThan wakeBound
        }
        withClue("release() of the waiter's lease") { next.release() shouldBe true }
    },

    scenario("shouldNotPollWhileWaiting", "G7") {
        // Given a holder with a long lease, and a waiter on another node
        val a = newClient()
        val waiter = newNode()
        val held = a.lock(lockName).acquire(Timing.ACQUIRE_WAIT)
        val waiting = waiter.client.lock(lockName).acquireAsync(Duration.ofSeconds(30))
        await("the waiter has tried once") { waiter.counter.count(ScriptNames.ACQUIRE) >= 1 }
        // When it waits for over a second
        hold(Duration.ofMillis(1200))
        // Then it has made at most an attempt before and one after subscribing: no polling
        val acquires = waiter.counter.count(ScriptNames.ACQUIRE)
        val calls = waiter.counter.total()
        withClue("still waiting") { waiting.isDone shouldBe false }
        withClue("acquire calls while waiting ~1.2 s; all calls: ${waiter.counter.counts()}") { acquires shouldBeLessThanOrEqual 2 }
        withClue("script calls of any kind while waiting ~1.2 s; all calls: ${waiter.counter.counts()}") { calls shouldBeLessThanOrEqual 3 }
        withClue("subscriptions while waiting") { waiter.counter.subscribeCount() shouldBeLessThanOrEqual 1 }
        waiting.cancel(true)
        withClue("release() by the holder") { held.release() shouldBe true }
    },

    scenario("shouldNotPollAHolderWhoseKeyHasNoTtl", "G7") {
        // Given a lock whose key never runs out (no TTL: a PERSIST, or a key written by hand), and a
        // waiter
        fixture.writeKey(lockKey(), "0123456789abcdef0123456789abcdef:42")
        val waiter = newNode()
        val waiting = waiter.client.lock(lockName).acquireAsync(Duration.ofSeconds(30))
        await("the waiter has tried once") { waiter.counter.count(ScriptNames.ACQUIRE) >= 1 }
        // When it waits for over a second
        hold(Duration.ofMillis(1200))
        // Then it asks about once a second (a remaining time of -1 is not a TTL about to run out)
        val acquires = waiter.counter.count(ScriptNames.ACQUIRE)
        withClue("still waiting") { waiting.isDone shouldBe false }
        withClue("acquire calls while waiting ~1.2 s on an untimed holder; all calls: ${waiter.counter.counts()}") {
            acquires shouldBeLessThanOrEqual 4
        }
        // And when the key is deleted (which publishes nothing), it takes the lock by asking
        fixture.deleteKey(lockKey())
        val next = waiting.value("the waiter's lease after the untimed key was deleted", Duration.ofSeconds(10))
        withClue("release() of the waiter's lease") { next.release() shouldBe true }
    },

    scenario("shouldShareOneSubscriptionAmongLocalWaiters", "G7") {
        // Given a holder, and three waiters for the same lock on one node
        val a = newClient()
        val waiter = newNode()
        val held = a.lock(lockName).acquire(Timing.ACQUIRE_WAIT)
        val waiting = List(3) { waiter.client.lock(lockName).acquireAsync(Duration.ofSeconds(30)) }
        await("every waiter has tried once and one subscription is made") {
            waiter.counter.count(ScriptNames.ACQUIRE) >= 1 && waiter.counter.subscribeCount() >= 1
        }
        hold(Duration.ofMillis(500))
        // Then they share one subscription and do not each poll: at most three calls each in the half
        // second they wait (their first attempt; one when the subscription becomes active, as a grant
        // naming them may have been published before it; one more when that raced their first reply)
        withClue("subscriptions made for three local waiters of one lock") { waiter.counter.subscribeCount() shouldBe 1 }
        withClue("acquire calls by three local waiters; all calls: ${waiter.counter.counts()}") {
            waiter.counter.count(ScriptNames.ACQUIRE) shouldBeLessThanOrEqual 9
        }
        // When the holder releases, each waiter gets the lock in turn
        withClue("release() by the holder") { held.release() shouldBe true }
        // (each releases on a pool thread as soon as it has the lock, never on the engine's thread)
        val tokens = waiting.map { f ->
            f.thenApplyAsync { lease -> lease.fencingToken().also { lease.release() } }
        }.map { it.value("a local waiter's turn") }.toSet()
        withClue("distinct leases handed to the local waiters") { tokens.size shouldBe waiting.size }
        // And the shared subscription ends once nobody waits (it is reference-counted, not kept forever)
        await("the waiters' subscription is dropped; ${waiter.counter}") { waiter.counter.activeSubscriptions() == 0L }
    },

    scenario("shouldReturnWithinBoundWhenWaitTimesOut", "G7, G9") {
        // Given a held lock
        val a = newClient()
        val b = newClient()
        val held = a.lock(lockName).acquire(Timing.ACQUIRE_WAIT)
        val wait = Duration.ofMillis(700)
        val bound = wait.plus(Timing.COMMAND_TIMEOUT).plus(Timing.SLACK)
        // When another node waits for it, blocking, optional and async
        var start = System.nanoTime()
        val thrown = shouldThrow<LockTimeoutException> { b.lock(lockName).acquire(wait) }
        var elapsed = elapsedSince(start)
        // Then each gives up after the wait, within the wait plus a command timeout (plus slack for this machine)
        withClue("acquire($wait) gave up after $elapsed") {
            elapsed shouldBeGreaterThanOrEqualTo wait
            elapsed shouldBeLessThan bound
        }
        thrown.shouldBeAbout(lockName)
        withClue("LockTimeoutException.waited()") { thrown.waited() shouldBe wait }
        start = System.nanoTime()
        b.lock(lockName).tryAcquire(wait).shouldBeAbsent("tryAcquire($wait) of a held lock")
        elapsed = elapsedSince(start)
        withClue("tryAcquire($wait) gave up after $elapsed") {
            elapsed shouldBeGreaterThanOrEqualTo wait
            elapsed shouldBeLessThan bound
        }
        start = System.nanoTime()
        b.lock(lockName).acquireAsync(wait).failure("acquireAsync($wait) of a held lock").shouldBeInstanceOf<LockTimeoutException>()
        elapsed = elapsedSince(start)
        withClue("acquireAsync($wait) gave up after $elapsed") {
            elapsed shouldBeGreaterThanOrEqualTo wait
            elapsed shouldBeLessThan bound
        }
        // And the waits left nothing behind
        withClue("holder after the timeouts") {
            a.lock(lockName).inspect().present("inspect()").fencingToken() shouldBe held.fencingToken()
        }
        withClue("release() by the holder") { held.release() shouldBe true }
    },

    scenario("shouldMakeAtLeastOneAttemptEvenWhenTheWaitIsTiny", "G7, G9") {
        val a = newClient()
        val lock = a.lock(lockName)
        // When a free lock is asked for, many times, with waits far shorter than a round trip
        val waits = listOf(Duration.ZERO, Duration.ofNanos(1), Duration.ofMillis(1))
        val failures = mutableListOf<String>()
        repeat(600) { i ->
            val wait = waits[i % waits.size]
            val lease = runCatching { lock.acquire(wait) }
            lease.onSuccess { it.release() }.onFailure { failures += "acquire($wait) #$i: $it" }
        }
        // Then every call made its attempt and got the free lock
        withClue("acquisitions of a free lock that failed") { failures shouldBe emptyList() }
    },
)
