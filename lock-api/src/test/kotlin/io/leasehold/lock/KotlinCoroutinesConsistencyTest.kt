package io.leasehold.lock

import java.io.File
import java.lang.reflect.Method
import java.lang.reflect.Modifier
import java.util.concurrent.CompletableFuture
import java.util.concurrent.CompletionStage
import java.util.jar.JarFile
import kotlin.reflect.KFunction
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

    /** A future-returning method with no suspend twin anywhere. */
    interface WithoutTwins {
        fun refreshAsync(value: String): CompletableFuture<String>
    }

    private companion object {
        val SPECIAL_TWINS = mapOf(
            "callLockedAsync" to "withLock",
            "lost" to "awaitLoss",
        )

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
        fun suspendExtensionsOn(type: Class<*>): List<KFunction<*>> {
            val facade = try {
                Class.forName("${type.packageName}.${type.simpleName}ExtensionsKt")
            } catch (e: ClassNotFoundException) {
                return emptyList()
            }
            return facade.declaredMethods
                .filter { Modifier.isPublic(it.modifiers) && Modifier.isStatic(it.modifiers) }
                .mapNotNull { it.kotlinFunction }
                .filter { it.isSuspend && it.parameters.firstOrNull()?.type?.classifier == type.kotlin }
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
