package io.leasehold.lock.testkit.conformance

import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertSame
import org.junit.jupiter.api.Assertions.assertThrows
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test

/**
 * The scenarios' own matchers (Matchers.kt, which replaced kotest's so that the JUnit suite needs no
 * kotest): each passes what it should and fails what it should, or a scenario could pass vacuously.
 */
class MatchersTest {

    private fun fails(check: () -> Unit): AssertionError = assertThrows(AssertionError::class.java) { check() }

    @Test
    fun shouldPassEqualValuesAndFailUnequalOnes() {
        assertEquals(3L, 3L shouldBe 3L)
        assertTrue(fails { 3L shouldBe 4L }.message!!.contains("expected: 4 but was: 3"))
        listOf("a", "b") shouldBe listOf("a", "b")
        fails { listOf("a", "b") shouldBe listOf("b", "a") }
        arrayOf(1, 2) shouldBe arrayOf(1, 2)
        fails { arrayOf(1, 2) shouldBe arrayOf(2, 1) }
        null shouldBe null
        fails { "x" shouldBe null }
    }

    @Test
    fun shouldCompareOrderedValuesAtTheirBoundaries() {
        2 shouldBeGreaterThan 1
        fails { 1 shouldBeGreaterThan 1 }
        1L shouldBeGreaterThanOrEqual 1L
        fails { 0L shouldBeGreaterThanOrEqualTo 1L }
        1 shouldBeLessThan 2
        fails { 2 shouldBeLessThan 2 }
        2 shouldBeLessThanOrEqual 2
        fails { 3L shouldBeLessThanOrEqualTo 2L }
    }

    @Test
    fun shouldReturnTheExpectedExceptionAndFailOnAnyOther() {
        val boom = IllegalStateException("boom")
        assertSame(boom, shouldThrow<IllegalStateException> { throw boom })
        shouldThrow<RuntimeException> { throw boom }
        val wrongType = fails { shouldThrow<IllegalArgumentException> { throw boom } }
        assertSame(boom, wrongType.cause)
        assertTrue(fails { shouldThrow<IllegalStateException> { "no exception" } }.message!!.contains("returned no exception"))
    }

    @Test
    fun shouldCheckTypesNullsInstancesAndStrings() {
        val any: Any? = "text"
        assertEquals(4, any.shouldBeInstanceOf<String>().length)
        fails { any.shouldBeInstanceOf<Int>() }
        fails { null.shouldBeInstanceOf<String>() }
        fails { (null as String?).shouldNotBeNull() }
        val shared = Any()
        shared shouldBeSameInstanceAs shared
        fails { Any() shouldBeSameInstanceAs shared }
        "lock 'orders'" shouldContain "orders"
        fails { "lock 'orders'" shouldContain "invoices" }
        "token-42" shouldMatch "token-\\d+"
        fails { "token-42x" shouldMatch Regex("token-\\d+") }
    }

    @Test
    fun shouldPutNestedCluesInFrontOfTheFailure() {
        val failure = fails { withClue("outer") { withClue("inner") { 1 shouldBe 2 } } }
        assertEquals("outer\ninner\nexpected: 2 but was: 1", failure.message)
        assertEquals(5, withClue("no failure") { 5 })
    }
}
