package io.leasehold.lock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Method;
import org.junit.jupiter.api.Test;

/** Reading one {@link Locked} method's annotation: what its key makes of the arguments, and its refusals. */
class LockedMethodTest {

    static class Annotated {
        @Locked(name = "text", key = "#text.length()")
        public void byName(String text) {}

        @Locked(name = "text", key = "#p0.length()")
        public void byPosition(String text) {}
    }

    private static Locked locked(String method) throws NoSuchMethodException {
        return Annotated.class.getMethod(method, String.class).getAnnotation(Locked.class);
    }

    /** A method of the JDK's, whose class file holds no argument names (java.base is compiled without -parameters). */
    private static Method withoutArgumentNames() throws NoSuchMethodException {
        Method method = String.class.getMethod("concat", String.class);
        assertThat(method.getParameters()[0].isNamePresent())
                .as("sanity: no names compiled in")
                .isFalse();
        return method;
    }

    @Test
    void shouldSayWhyAKeyNamingAnArgumentFoundNothingWhenNamesWereNotCompiledIn() throws Exception {
        LockedMethod method = new LockedMethod(withoutArgumentNames(), locked("byName"), value -> value);

        assertThatThrownBy(() -> method.lockName("abc", new Object[] {"de"}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("@Locked(key = \"#text.length()\") on String.concat() could not be evaluated")
                .hasMessageEndingWith("(the argument names of String.concat() are not in its class file: compile with"
                        + " javac's -parameters, as spring-boot-starter-parent does, or name the arguments #p0, #p1,"
                        + " ...)");
    }

    @Test
    void shouldNameArgumentsByPositionWhenNamesWereNotCompiledIn() throws Exception {
        LockedMethod method = new LockedMethod(withoutArgumentNames(), locked("byPosition"), value -> value);

        assertThat(method.lockName("abc", new Object[] {"de"})).isEqualTo("text:2");
    }

    @Test
    void shouldNameArgumentsByNameWhenNamesWereCompiledIn() throws Exception {
        Method byName = Annotated.class.getMethod("byName", String.class);
        LockedMethod method = new LockedMethod(byName, locked("byName"), value -> value);

        assertThat(method.lockName(new Annotated(), new Object[] {"abcd"})).isEqualTo("text:4");
    }
}
