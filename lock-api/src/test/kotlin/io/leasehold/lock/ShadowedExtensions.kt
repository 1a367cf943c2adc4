package io.leasehold.lock

// Test fixture of KotlinCoroutinesConsistencyTest: an extension that its type's own member shadows.

/** A type whose member takes a functional interface. */
interface Shadowed {
    fun refresh(action: Runnable)
}

/** Never reached from Kotlin: `shadowed.refresh { }` SAM-converts the lambda and calls the member. */
fun Shadowed.refresh(action: () -> Unit) {
    action()
}
