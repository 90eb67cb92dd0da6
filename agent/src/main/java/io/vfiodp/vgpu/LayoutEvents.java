package io.vfiodp.vgpu;

/**
 * Where the layout manager reports what an operator should see on the Node: a Warning Event per
 * failed write, and the {@value #ANNOTATION} annotation. Logs are written by the manager itself.
 */
public interface LayoutEvents {

    String ANNOTATION = "vfio-device-plugin/vgpu-layout-state";

    /** A Warning Event on the Node. */
    void warn(String reason, String message);

    /** The node annotation: {@code pending}, {@code success} or {@code failed}, with a message. */
    void state(LayoutState state, String message);

    /** These events, and each state also to {@code observer} (the metrics). */
    default LayoutEvents alsoStatesTo(java.util.function.Consumer<LayoutState> observer) {
        LayoutEvents events = this;
        return new LayoutEvents() {
            @Override
            public void warn(String reason, String message) {
                events.warn(reason, message);
            }

            @Override
            public void state(LayoutState state, String message) {
                observer.accept(state);
                events.state(state, message);
            }
        };
    }

    LayoutEvents NONE = new LayoutEvents() {
        @Override
        public void warn(String reason, String message) {}

        @Override
        public void state(LayoutState state, String message) {}
    };
}
