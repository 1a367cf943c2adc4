@file:OptIn(ExperimentalContracts::class)

package io.leasehold.lock.testkit.conformance

import kotlin.contracts.ExperimentalContracts
import kotlin.contracts.contract

// The few matchers the scenarios use, written here so that the conformance suite needs no assertion
// library: a Java team that runs LockConformanceSuite under JUnit gets no kotest on its test
// classpath. Names and meanings follow kotest's, so the scenarios read as they did.

/**
 * Runs [block]; an [AssertionError] it throws is rethrown with [clue] in front of its message, so
 * that a failure says which value was checked. Clues nest, outermost first.
 */
internal inline fun <R> withClue(clue: Any?, block: () -> R): R =
    try {
        block()
    } catch (e: AssertionError) {
        throw AssertionError("$clue\n${e.message}", e)
    }

/** The exception of type [T] (or a subtype) that [block] throws; fails if it throws nothing or something else. */
internal inline fun <reified T : Throwable> shouldThrow(block: () -> Any?): T {
    val returned = try {
        block()
    } catch (e: Throwable) {
        if (e is T) return e
        throw AssertionError("expected ${T::class.qualifiedName} to be thrown, but ${e::class.qualifiedName} was: $e", e)
    }
    throw AssertionError("expected ${T::class.qualifiedName} to be thrown, but the block returned $returned")
}

/** Asserts equality (content equality for arrays); returns this value. */
internal infix fun <T> T.shouldBe(expected: T?): T {
    val equal = if (this is Array<*> && expected is Array<*>) this.contentDeepEquals(expected) else this == expected
    if (!equal) throw AssertionError("expected: ${show(expected)} but was: ${show(this)}")
    return this
}

internal infix fun <T : Comparable<T>> T.shouldBeGreaterThan(other: T): T =
    also { if (this <= other) throw AssertionError("${show(this)} should be > ${show(other)}") }

internal infix fun <T : Comparable<T>> T.shouldBeGreaterThanOrEqualTo(other: T): T =
    also { if (this < other) throw AssertionError("${show(this)} should be >= ${show(other)}") }

internal infix fun <T : Comparable<T>> T.shouldBeGreaterThanOrEqual(other: T): T = shouldBeGreaterThanOrEqualTo(other)

internal infix fun <T : Comparable<T>> T.shouldBeLessThan(other: T): T =
    also { if (this >= other) throw AssertionError("${show(this)} should be < ${show(other)}") }

internal infix fun <T : Comparable<T>> T.shouldBeLessThanOrEqualTo(other: T): T =
    also { if (this > other) throw AssertionError("${show(this)} should be <= ${show(other)}") }

internal infix fun <T : Comparable<T>> T.shouldBeLessThanOrEqual(other: T): T = shouldBeLessThanOrEqualTo(other)

/** Asserts that this value is not null; the compiler then knows it too. */
internal fun <T : Any> T?.shouldNotBeNull(): T {
    contract { returns() implies (this@shouldNotBeNull != null) }
    return this ?: throw AssertionError("expected a value, but was null")
}

/** Asserts that this value is a [T] and returns it as one. */
internal inline fun <reified T : Any> Any?.shouldBeInstanceOf(): T {
    contract { returns() implies (this@shouldBeInstanceOf is T) }
    if (this !is T) {
        val actual = if (this == null) "null" else "${this::class.qualifiedName}: $this"
        throw AssertionError("expected an instance of ${T::class.qualifiedName}, but was $actual")
    }
    return this
}

internal infix fun <T> T.shouldBeSameInstanceAs(expected: T): T =
    also { if (this !== expected) throw AssertionError("expected the same instance as ${show(expected)}, but was ${show(this)}") }

internal infix fun String?.shouldContain(part: String): String {
    if (this == null || !contains(part)) throw AssertionError("expected ${show(this)} to contain ${show(part)}")
    return this
}

/** Asserts that the whole string matches [regex]. */
internal infix fun String?.shouldMatch(regex: Regex): String {
    if (this == null || !regex.matches(this)) throw AssertionError("expected ${show(this)} to match /$regex/")
    return this
}

/** Asserts that the whole string matches [regex]. */
internal infix fun String?.shouldMatch(regex: String): String = shouldMatch(Regex(regex))

private fun show(value: Any?): String = when (value) {
    null -> "null"
    is String -> "\"$value\""
    is Array<*> -> value.contentDeepToString()
    else -> value.toString()
}
