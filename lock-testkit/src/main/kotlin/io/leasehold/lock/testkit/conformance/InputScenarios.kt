package io.leasehold.lock.testkit.conformance

import io.leasehold.lock.LockClient
import io.leasehold.lock.LockOptions
import java.time.Duration

// G11: bad input gets a clear error naming the parameter, the rule, the value and the lock, and
// nothing is lost; double release and release after loss are documented results, not errors.

private val NEGATIVE: Duration = Duration.ofSeconds(-1)
private val OVERFLOWING: Duration = Duration.ofSeconds(Long.MAX_VALUE)

internal val inputScenarios: List<Scenario> = listOf(

    scenario("shouldRejectBadLockNamesWithClearMessages", "G11") {
        val a = newClient()
        shouldThrow<IllegalArgumentException> { a.lock(Nulls.nothing()) }.shouldMention("name", "null")
        shouldThrow<IllegalArgumentException> { a.lock("   ") }.shouldMention("name", "blank", "'   '")
        shouldThrow<IllegalArgumentException> { a.lock("") }.shouldMention("name", "blank", "''")
        val oversized = "x".repeat(513)
        shouldThrow<IllegalArgumentException> { a.lock(oversized) }.shouldMention("name", "at most 512", "513")
        shouldThrow<IllegalArgumentException> { a.lock(lockName, Nulls.nothing()) }.shouldMention("options", "null", lockName)
        // The fair lock checks the same, with the same messages
        shouldThrow<IllegalArgumentException> { a.fairLock(Nulls.nothing()) }.shouldMention("name", "null")
        shouldThrow<IllegalArgumentException> { a.fairLock("   ") }.shouldMention("name", "blank", "'   '")
        shouldThrow<IllegalArgumentException> { a.fairLock(oversized) }.shouldMention("name", "at most 512", "513")
        shouldThrow<IllegalArgumentException> { a.fairLock(lockName, Nulls.nothing()) }.shouldMention("options", "null", lockName)
        // And a good name still works afterwards
        a.lock(lockName).tryAcquire().present("tryAcquire() after the rejected names").use { }
    },

    scenario("shouldRejectBadWaitsWithClearMessages", "G11") {
        val a = newClient()
        val lock = a.lock(lockName)
        shouldThrow<IllegalArgumentException> { lock.acquire(NEGATIVE) }.shouldMention("wait", "negative", "$NEGATIVE", lockName)
        shouldThrow<IllegalArgumentException> { lock.acquire(OVERFLOWING) }.shouldMention("wait", "at most", "$OVERFLOWING", lockName)
        shouldThrow<IllegalArgumentException> { lock.acquire(Nulls.nothing()) }.shouldMention("wait", "null", lockName)
        shouldThrow<IllegalArgumentException> { lock.tryAcquire(NEGATIVE) }.shouldMention("wait", "negative", "$NEGATIVE", lockName)
        rejected<IllegalArgumentException>("acquireAsync($NEGATIVE)") { lock.acquireAsync(NEGATIVE) }
            .shouldMention("wait", "negative", "$NEGATIVE", lockName)
        rejected<IllegalArgumentException>("tryAcquireAsync($OVERFLOWING)") { lock.tryAcquireAsync(OVERFLOWING) }
            .shouldMention("wait", "at most", "$OVERFLOWING", lockName)
        shouldThrow<IllegalArgumentException> { lock.callLocked(NEGATIVE) { "ran" } }.shouldMention("wait", "negative", lockName)
        shouldThrow<IllegalArgumentException> { lock.runLocked(OVERFLOWING) { } }.shouldMention("wait", "at most", lockName)
        // And nothing was taken by the rejected calls
        withClue("isLocked() after the rejected calls") { lock.isLocked shouldBe false }
    },

    scenario("shouldRejectBadLeaseDurationsWithClearMessages", "G11") {
        val a = newClient()
        val lease = a.lock(lockName).acquire(Timing.ACQUIRE_WAIT)
        shouldThrow<IllegalArgumentException> { lease.extend(Duration.ZERO) }.shouldMention("leaseTime", "greater than 0", "PT0S", lockName)
        shouldThrow<IllegalArgumentException> { lease.extend(NEGATIVE) }.shouldMention("leaseTime", "greater than 0", "$NEGATIVE", lockName)
        shouldThrow<IllegalArgumentException> { lease.extend(OVERFLOWING) }.shouldMention("leaseTime", "at most", "$OVERFLOWING", lockName)
        shouldThrow<IllegalArgumentException> { lease.extendAsync(Duration.ZERO) }.shouldMention("leaseTime", "greater than 0", "PT0S", lockName)
        // And the lease survived the rejected calls
        withClue("isValid() after the rejected extends") { lease.isValid shouldBe true }
        withClue("release()") { lease.release() shouldBe true }
        // Options and client settings are checked where they are set
        shouldThrow<IllegalArgumentException> { LockOptions.builder().leaseTime(Duration.ZERO) }
            .shouldMention("leaseTime", "greater than 0", "PT0S")
        shouldThrow<IllegalArgumentException> { LockOptions.builder().leaseTime(Duration.ofMillis(10)) }
            .shouldMention("leaseTime", "at least", "${LockOptions.MIN_LEASE_TIME}", "PT0.01S")
        shouldThrow<IllegalArgumentException> { LockOptions.builder().leaseTime(OVERFLOWING) }
            .shouldMention("leaseTime", "at most", "$OVERFLOWING")
        shouldThrow<IllegalArgumentException> { LockOptions.builder().maxHoldTime(NEGATIVE) }
            .shouldMention("maxHoldTime", "greater than 0", "$NEGATIVE")
        shouldThrow<IllegalArgumentException> { LockOptions.builder().defaultWait(NEGATIVE) }
            .shouldMention("defaultWait", "negative", "$NEGATIVE")
        shouldThrow<IllegalArgumentException> { LockOptions.builder().leaseTime(Duration.ofSeconds(2)).maxHoldTime(Duration.ofSeconds(1)).build() }
            .shouldMention("maxHoldTime", "leaseTime", "PT2S", "PT1S")
        // ... and name the lock when the builder is told which one the options are for
        shouldThrow<IllegalArgumentException> { LockOptions.builder().forLock(lockName).leaseTime(Duration.ZERO) }
            .shouldMention("leaseTime", "greater than 0", "PT0S", "(lock '$lockName')")
        shouldThrow<IllegalArgumentException> { LockOptions.builder().forLock(lockName).defaultWait(NEGATIVE) }
            .shouldMention("defaultWait", "negative", "$NEGATIVE", "(lock '$lockName')")
        fixture.newBackend().use { backend ->
            shouldThrow<IllegalArgumentException> { LockClient.builder(backend).commandTimeout(Duration.ZERO) }
                .shouldMention("commandTimeout", "greater than 0", "PT0S")
            shouldThrow<IllegalArgumentException> { LockClient.builder(backend).closeTimeout(NEGATIVE) }
                .shouldMention("closeTimeout", "greater than 0", "$NEGATIVE")
        }
    },

    scenario("shouldRejectUseAfterClose", "G11, G12") {
        val a = newClient()
        val lock = a.lock(lockName)
        val lease = lock.acquire(Timing.ACQUIRE_WAIT)
        a.close()
        withClue("isClosed() after close()") { a.isClosed shouldBe true }
        shouldThrow<IllegalStateException> { a.lock(uniqueName("after-close")) }.shouldMention("closed")
        shouldThrow<IllegalStateException> { a.fairLock(uniqueName("after-close")) }.shouldMention("closed")
        shouldThrow<IllegalStateException> { lock.acquire(Timing.ACQUIRE_WAIT) }.shouldMention("closed", lockName)
        shouldThrow<IllegalStateException> { lock.tryAcquire() }.shouldMention("closed", lockName)
        rejected<IllegalStateException>("acquireAsync after close") { lock.acquireAsync(Timing.ACQUIRE_WAIT) }.shouldMention("closed", lockName)
        shouldThrow<IllegalStateException> { lock.callLocked(Timing.ACQUIRE_WAIT) { "ran" } }.shouldMention("closed", lockName)
        // And the lease close() released is simply over
        withClue("release() of a lease released by close()") { lease.release() shouldBe false }
        withClue("isValid() of a lease released by close()") { lease.isValid shouldBe false }
    },

    scenario("shouldTreatDoubleReleaseAsNoOp", "G11") {
        val a = newClient()
        val lease = a.lock(lockName).acquire(Timing.ACQUIRE_WAIT)
        withClue("first release()") { lease.release() shouldBe true }
        withClue("second release()") { lease.release() shouldBe false }
        lease.close()
        withClue("releaseAsync() after release") { lease.releaseAsync().value("releaseAsync()") shouldBe false }
        withClue("isValid() after release") { lease.isValid shouldBe false }
        withClue("lost() after a normal release (it completes only on loss)") { lease.lost().isDone shouldBe false }
        // And a second release did not free a later holder's lock
        val next = newClient().lock(lockName).tryAcquire().present("tryAcquire() after the releases")
        withClue("third release() while another lease holds the lock") { lease.release() shouldBe false }
        withClue("isValid() of the later lease") { next.isValid shouldBe true }
        withClue("release() of the later lease") { next.release() shouldBe true }
    },

    scenario("shouldRejectExtendAfterRelease", "G11") {
        val a = newClient()
        val lease = a.lock(lockName).acquire(Timing.ACQUIRE_WAIT)
        withClue("release()") { lease.release() shouldBe true }
        shouldThrow<IllegalStateException> { lease.extend(Duration.ofSeconds(1)) }.shouldMention("released", lockName)
        rejected<IllegalStateException>("extendAsync after release") { lease.extendAsync(Duration.ofSeconds(1)) }
            .shouldMention("released", lockName)
        withClue("isLocked() after the rejected extends") { a.lock(lockName).isLocked shouldBe false }
    },

    scenario("shouldLockEveryAcceptedNameOnItsOwnOnEveryTopology", "G1, G11") {
        val a = newClient()
        val b = newClient()
        val base = uniqueName("names")
        // Given names that break naive key layouts: braces that empty or end the cluster hash tag,
        // escapes, unicode, and the longest accepted name
        val names = listOf("}", "}}", "}x", "{", "{}", "a}b{c", "a%7Db", "a}b", "%", "%25", "}%7D", "\uD83D\uDD12 lock",
            "\u9396", "e\u0301", "tab\tnew\nline").map { "$base:$it" } +
            listOf("}".repeat(LockClient.MAX_NAME_LENGTH), ("}" + base).padEnd(LockClient.MAX_NAME_LENGTH, 'x'))
        withClue("the sweep has distinct names") { names.toSet().size shouldBe names.size }
        // When one node holds them all at once
        val leases = names.map { name -> a.lock(name).tryAcquire().present("tryAcquire() of '${name.take(40)}'") }
        // Then each is its own lock: held with its own token, refused to another node, released on its own
        names.zip(leases).forEach { (name, lease) ->
            withClue("holder of '${name.take(40)}'") { b.lock(name).inspect().present("inspect()").fencingToken() shouldBe lease.fencingToken() }
            b.lock(name).tryAcquire().shouldBeAbsent("tryAcquire() of '${name.take(40)}' by another node")
        }
        names.zip(leases).forEach { (name, lease) -> withClue("release() of '${name.take(40)}'") { lease.release() shouldBe true } }
        names.forEach { name -> withClue("isLocked() of '${name.take(40)}' after release") { b.lock(name).isLocked shouldBe false } }
        // And names that cannot be stored faithfully are refused with a clear message
        listOf("$base:a\uD800", "$base:\uDC00b", "$base:\uDFFF\uD800").forEach { bad ->
            shouldThrow<IllegalArgumentException> { a.lock(bad) }.shouldMention("name", "unpaired surrogate")
        }
    },

    scenario("shouldRejectAnExtendShorterThanTheMinimumLease", "G11") {
        val a = newClient()
        val lease = a.lock(lockName).acquire(Timing.ACQUIRE_WAIT)
        shouldThrow<IllegalArgumentException> { lease.extend(Duration.ofNanos(1)) }
            .shouldMention("leaseTime", "at least", "${LockOptions.MIN_LEASE_TIME}", "PT0.000000001S", lockName)
        rejected<IllegalArgumentException>("extendAsync(49 ms)") { lease.extendAsync(Duration.ofMillis(49)) }
            .shouldMention("leaseTime", "at least", "${LockOptions.MIN_LEASE_TIME}", "PT0.049S", lockName)
        withClue("isValid() after the rejected extends") { lease.isValid shouldBe true }
        withClue("release()") { lease.release() shouldBe true }
    },

    scenario("shouldSayThatThisClientHoldsTheLockWhenItAcquiresItAgain", "G9, G10, G11") {
        val a = newClient()
        val held = a.lock(lockName).acquire(Timing.ACQUIRE_WAIT)
        // When the same client asks for a lock it already holds through a plain lease
        val thrown = shouldThrow<io.leasehold.lock.LockTimeoutException> { a.lock(lockName).acquire(Timing.SHORT_WAIT) }
        // Then the timeout says so, instead of blaming another owner
        thrown.shouldMention("this client", lockName)
        withClue("message of $thrown") { thrown.message!!.contains("another owner") shouldBe false }
        withClue("heldByCaller() of $thrown (this thread holds the lease it re-asks for)") { thrown.heldByCaller() shouldBe true }
        // And another node's timeout still blames another owner
        newClient().lock(lockName).tryAcquire(Timing.SHORT_WAIT).shouldBeAbsent("tryAcquire() by another node")
        shouldThrow<io.leasehold.lock.LockTimeoutException> { newClient().lock(lockName).acquire(Timing.SHORT_WAIT) }
            .shouldMention("another owner", lockName)
        held.release()
    },
)
