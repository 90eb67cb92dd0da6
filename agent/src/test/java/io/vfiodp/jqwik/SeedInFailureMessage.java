package io.vfiodp.jqwik;

import java.util.List;
import net.jqwik.api.lifecycle.AroundPropertyHook;
import net.jqwik.api.lifecycle.PropagationMode;
import net.jqwik.api.lifecycle.PropertyExecutionResult;
import net.jqwik.api.lifecycle.PropertyExecutor;
import net.jqwik.api.lifecycle.PropertyLifecycleContext;

/**
 * Puts a failed property's seed and shrunk sample into the failure itself. jqwik prints them
 * in its report on standard output, which surefire sends to a file under
 * {@code target/surefire-reports}; a CI log shows only the failure, and without the seed a
 * random failure there cannot be replayed. Registered for every property through
 * {@code META-INF/services/net.jqwik.api.lifecycle.LifecycleHook}.
 */
public final class SeedInFailureMessage implements AroundPropertyHook {

    @Override
    public PropagationMode propagateTo() {
        return PropagationMode.ALL_DESCENDANTS;
    }

    @Override
    public PropertyExecutionResult aroundProperty(PropertyLifecycleContext context, PropertyExecutor property) {
        PropertyExecutionResult result = property.execute();
        if (result.status() != PropertyExecutionResult.Status.FAILED || result.seed().isEmpty()) return result;
        Throwable cause = result.throwable().orElse(null);
        String sample = result.falsifiedParameters().map(List::toString).orElse("(none)");
        String message = context.extendedLabel() + " failed with seed " + result.seed().get()
                + " (replay: @Property(seed = \"" + result.seed().get() + "\"))"
                + "\n  shrunk sample: " + sample
                + "\n  failure: " + (cause == null ? "(none)" : cause);
        return result.mapToFailed(new AssertionError(message, cause));
    }
}
