package io.vfiodp.cli;

import java.util.function.Consumer;
import java.util.function.Supplier;
import picocli.CommandLine.Model.IGetter;
import picocli.CommandLine.Model.ISetter;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The field an option's value lives in, as picocli's getter and setter: what picocli does by
 * reflection for an {@code @Option} field, without reflection (its accessors spin method handles
 * at start-up).
 */
record OptionField<T>(Supplier<T> read, Consumer<T> write) implements IGetter, ISetter {

    /** {@code option}, its value kept in this field. */
    OptionSpec.Builder bind(OptionSpec.Builder option) {
        return option.getter(this).setter(this);
    }

    @Override
    @SuppressWarnings("unchecked")
    public <V> V get() {
        return (V) read.get();
    }

    @Override
    @SuppressWarnings("unchecked")
    public <V> V set(V value) {
        V previous = get();
        write.accept((T) value);
        return previous;
    }
}
