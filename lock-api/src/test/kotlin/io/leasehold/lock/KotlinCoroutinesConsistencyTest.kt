package io.leasehold.lock

import java.io.File
import java.lang.reflect.Method
import java.lang.reflect.Modifier
import java.util.concurrent.CompletableFuture
import java.util.concurrent.CompletionStage
import java.util.jar.JarFile
import kotlin.reflect.KFunction
import kotlin.reflect.jvm.jvmErasure
import kotlin.reflect.jvm.kotlinFunction
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test

/**
 * Every public Java method of the public interfaces in `io.leasehold.lock` that returns a
 * `CompletableFuture`/`CompletionStage` has a suspending twin: an extension on the same interface,
 * in the file named after it (`<Type>Extensions.kt`), taking the same number of parameters.
 *
 * Twin names: `xAsync` → `awaitX`, `callLockedAsync` → `withLock`, `lost` → `awaitLoss`. Add a row to
 * [SPECIAL_TWINS] only for a future-returning method whose name does not end in `Async`.
 */
class KotlinCoroutinesConsistencyTest {

    @Test
    fun shouldHaveASuspendTwinForEveryAsyncJavaMethod() {
        val interfaces = publicInterfacesOf(DistributedLock::class.java.packageName)
        assertThat(interfaces).contains(DistributedLock::class.java, Lease::class.java, LockClient::class.java)

        val missing = interfaces.flatMap { missingTwins(it) }

        assertThat(missing).describedAs("async Java methods without a suspend twin").isEmpty()
    }

    @Test
    fun shouldReportAnAsyncJavaMethodThatHasNoTwin() {
        // Proof that the check above can fail: this interface's future-returning method has no twin.
        assertThat(missingTwins(WithoutTwins::class.java))
            .containsExactly("WithoutTwins.refreshAsync(1 parameter) needs `suspend fun WithoutTwins.awaitRefresh(1 parameter)` in WithoutTwinsExtensions.kt")
    }

    @Test
    fun shouldFindTheTwinsOfTheKnownAsyncMethods() {
        // Guards the mapping itself, so that a rename on either side shows up here by name.
        assertThat(asyncMethods(DistributedLock::class.java).map { it.name to twinName(it.name) }).containsExactlyInAnyOrder(
            "acquireAsync" to "awaitAcquire",
            "tryAcquireAsync" to "awaitTryAcquire",
            "callLockedAsync" to "withLock",
        )
        assertThat(asyncMethods(Lease::class.java).map { it.name to twinName(it.name) }).containsExactlyInAnyOrder(
            "lost" to "awaitLoss",
            "releaseAsync" to "awaitRelease",
            "extendAsync" to "awaitExtend",
        )
    }

    @Test
    fun shouldHaveACoroutineTwinForEveryCurrentThreadQuery() {
        // Reentrancy is by thread in Java and by coroutine in Kotlin (G10): a query about the current
        // thread has a suspend twin about the current coroutine.
        assertThat(threadQueries(DistributedLock::class.java)).containsExactlyInAnyOrderElementsOf(THREAD_TWINS.keys)
        assertThat(missingCoroutineTwins(DistributedLock::class.java)).isEmpty()
    }

    @Test
    fun shouldNameNoExtensionLikeAJavaMemberThatWouldShadowIt() {
        assertThat(shadowedExtensions(DistributedLock::class.java)).isEmpty()
        assertThat(shadowedExtensions(Lease::class.java)).isEmpty()
    }

    @Test
    fun shouldReportAnExtensionThatAJavaMemberShadows() {
        // Proof that the check above can fail: Shadowed's member takes a Runnable, which a Kotlin lambda
        // SAM-converts to, so `shadowed.refresh { }` calls the member, never ShadowedExtensions.kt's twin.
        assertThat(shadowedExtensions(Shadowed::class.java)).containsExactly("Shadowed.refresh(1 parameter)")
    }

    /** A future-returning method with no suspend twin anywhere. */
    interface WithoutTwins {
        fun refreshAsync(value: String): CompletableFuture<String>
    }

    private companion object {
        val SPECIAL_TWINS = mapOf(
            "callLockedAsync" to "withLock",
            "lost" to "awaitLoss",
        )

        /** Java queries about the current thread, and their suspend twins about the current coroutine. */
        val THREAD_TWINS = mapOf(
            "isHeldByCurrentThread" to "isHeldInCurrentCoroutine",
            "holdCount" to "holdCountInCurrentCoroutine",
        )

        /** The methods of [type] that answer for the current thread (named so, or listed in [THREAD_TWINS]). */
        fun threadQueries(type: Class<*>): List<String> = type.methods
            .filter { !Modifier.isStatic(it.modifiers) }
            .map { it.name }
            .filter { it.contains("CurrentThread") || it in THREAD_TWINS }
            .distinct()

        fun missingCoroutineTwins(type: Class<*>): List<String> {
            val twins = suspendExtensionsOn(type)
            return type.methods.filter { it.name in THREAD_TWINS }.mapNotNull { method ->
                val twin = THREAD_TWINS.getValue(method.name)
                if (twins.any { it.name == twin && it.parameters.size == method.parameterCount + 1 }) {
                    null
                } else {
                    "${type.simpleName}.${method.name} needs `suspend fun ${type.simpleName}.$twin()` in ${type.simpleName}Extensions.kt"
                }
            }
        }

        /**
         * The extensions on [type] in `<Type>Extensions.kt` that a Java member shadows: same name, as many
         * parameters, each of the same type or a functional interface where the extension takes a
         * function (a Kotlin lambda SAM-converts to it). A call would then silently reach the member.
         */
        fun shadowedExtensions(type: Class<*>): List<String> = extensionsOn(type).mapNotNull { extension ->
            val parameters = extension.parameters.drop(1)
            val shadowing = type.methods.any { member ->
                member.name == extension.name &&
                    member.parameterCount == parameters.size &&
                    member.parameterTypes.zip(parameters).all { (javaType, parameter) ->
                        val kotlinType = parameter.type.jvmErasure.java
                        javaType == kotlinType || (isFunctionalInterface(javaType) && Function::class.java.isAssignableFrom(kotlinType))
                    }
            }
            if (shadowing) "${type.simpleName}.${extension.name}(${plural(parameters.size)})" else null
        }

        fun isFunctionalInterface(type: Class<*>): Boolean =
            type.isInterface && type.methods.count { Modifier.isAbstract(it.modifiers) && !it.isDefault } == 1

        fun twinName(javaName: String): String? = SPECIAL_TWINS[javaName]
            ?: javaName.takeIf { it.endsWith("Async") && it.length > "Async".length }
                ?.removeSuffix("Async")
                ?.let { "await" + it.replaceFirstChar(Char::uppercaseChar) }

        fun asyncMethods(type: Class<*>): List<Method> = type.methods
            .filter { !Modifier.isStatic(it.modifiers) && it.declaringClass != Any::class.java }
            .filter { CompletionStage::class.java.isAssignableFrom(it.returnType) }

        /** Descriptions of the async methods of [type] that have no twin; empty when all have one. */
        fun missingTwins(type: Class<*>): List<String> {
            val twins = suspendExtensionsOn(type)
            return asyncMethods(type).mapNotNull { method ->
                val expected = twinName(method.name)
                val arity = method.parameterCount
                val found = twins.any { it.name == expected && it.parameters.size == arity + 1 }
                if (found) {
                    null
                } else {
                    "${type.simpleName}.${method.name}(${plural(arity)}) needs `suspend fun ${type.simpleName}." +
                        "${expected ?: "await…"}(${plural(arity)})` in ${type.simpleName}Extensions.kt"
                }
            }
        }

        fun plural(n: Int) = if (n == 1) "1 parameter" else "$n parameters"

        /** Suspend extension functions on [type] declared in `<Type>Extensions.kt` next to it. */
        fun suspendExtensionsOn(type: Class<*>): List<KFunction<*>> = extensionsOn(type).filter { it.isSuspend }

        /** Public extension functions on [type] declared in `<Type>Extensions.kt` next to it. */
        fun extensionsOn(type: Class<*>): List<KFunction<*>> {
            val facade = try {
                Class.forName("${type.packageName}.${type.simpleName}ExtensionsKt")
            } catch (e: ClassNotFoundException) {
                return emptyList()
            }
            return facade.declaredMethods
                .filter { Modifier.isPublic(it.modifiers) && Modifier.isStatic(it.modifiers) }
                .mapNotNull { it.kotlinFunction }
                .filter { it.parameters.firstOrNull()?.type?.classifier == type.kotlin }
                .distinctBy { it.toString() } // a function with default arguments has a second, synthetic method
        }

        /** The public interfaces compiled into [packageName], from a classes directory or a jar. */
        fun publicInterfacesOf(packageName: String): List<Class<*>> {
            val location = File(DistributedLock::class.java.protectionDomain.codeSource.location.toURI())
            val path = packageName.replace('.', '/')
            val classFiles = if (location.isDirectory) {
                File(location, path).listFiles().orEmpty().map { "$path/${it.name}" }
            } else {
                JarFile(location).use { jar -> jar.entries().toList().map { it.name } }
                    .filter { it.substringBeforeLast('/') == path }
            }
            return classFiles
                .filter { it.endsWith(".class") && !it.contains('$') }
                .map { Class.forName(it.removeSuffix(".class").replace('/', '.')) }
                .filter { it.isInterface && Modifier.isPublic(it.modifiers) }
                .sortedBy { it.name }
        }
    }
}
